import FetchLabCore
import FetchLabPredict
import Testing

@testable import FetchLabReport
