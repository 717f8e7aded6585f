import FetchLabCore
import FetchLabResults
import Testing

/// Issue 46: a user counts among the users with context only when the samples overlap the
/// launches in time (samples from another year are read by no replay).
@Suite struct PlatformInputsOverlapTests {
    /// Samples and launches at these spans after 1970.
    func history(samples: [Microseconds], launches: [Microseconds]) -> UserHistory {
        UserHistory(
            user: "u", apps: ["com.a"], launches: launches.map { UsageEvent(time: .epoch + $0, offset: 0, app: 0) },
            context: samples.map { ContextSample(time: .epoch + $0, battery: 50) })
    }

    @Test func samplesApartFromTheLaunchesDoNotCount() {
        let day = Microseconds.days(1)
        var inputs = PlatformInputs()
        inputs.add(history(samples: [0, day], launches: [1_000 * day, 1_001 * day]))
        #expect(inputs.users == 1 && inputs.usersWithContext == 0)
        inputs.add(history(samples: [999 * day, 1_000 * day + 5], launches: [1_000 * day, 1_001 * day]))
        #expect(inputs.users == 2 && inputs.usersWithContext == 1)
        inputs.add(history(samples: [], launches: [day]))
        #expect(inputs.usersWithContext == 1)
        // Samples and no launch: counted, as before.
        inputs.add(history(samples: [day], launches: []))
        #expect(inputs.usersWithContext == 2)
    }
}
