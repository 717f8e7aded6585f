import FetchLabCore
import FetchLabSimulation
import Testing

/// Signals are not use: an unlock or a notification before the first launch (or after the last)
/// moves neither t0 nor E, so the warm-up, the scored span and every figure stay the same.
@Suite struct SignalWindowTests {
    @Test func signalsMoveNeitherTheStartNorTheEndOfTheSpan() throws {
        let launches = (0..<20).map { day0 + .days(Int64($0)) + .hours(12) }
        let plain = user(launches: launches, events: [(day0 + .days(19) + .hours(13), .close)])
        let signalled = user(
            launches: launches,
            events: [
                (day0 - .days(3), .unlock), (day0 + .days(19) + .hours(13), .close),
                (day0 + .days(25), .notification), (day0 + .days(26), .systemUI), (day0 + .days(27), .screenOn),
            ])
        let protocolDefaults = EvaluationProtocol()
        let a = try #require(protocolDefaults.window(of: plain))
        let b = try #require(protocolDefaults.window(of: signalled))
        #expect(a == b)
        #expect(b.end == day0 + .days(19) + .hours(13))
        // A close (not a signal) does move the end.
        let closed = user(launches: launches, events: [(day0 + .days(25), .close)])
        #expect(try #require(protocolDefaults.window(of: closed)).end == day0 + .days(25))
    }
}
