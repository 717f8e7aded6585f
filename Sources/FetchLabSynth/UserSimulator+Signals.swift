import FetchLabCore

extension UserSimulator {
    /// The app index of device signals (unlock, screen on): one past the user's apps, named
    /// `AppID.device` in the history.
    var deviceApp: Int { truth.apps.count }

    /// The day's signals around its launches (see ``PopulationConfig/unlockProbability``): before
    /// a session's first launch, the screen on and an unlock, and perhaps the notification that
    /// prompted it; notifications no launch follows; glances. From their own random stream and
    /// kept apart from the launches, so no launch moves or disappears.
    mutating func simulateSignals(
        _ launches: [PlannedLaunch], clock: DayClock, wake: Int, sleep: Int, events: inout [SimulatedEvent]
    ) {
        var day: [(second: Int, app: Int, kind: UsageEventKind)] = []
        var screenOffUntil = -Int(Seconds.perDay)  // the end of the previous use
        for (i, launch) in launches.enumerated() {
            let previousEnd = screenOffUntil
            var end = launch.end
            if i + 1 < launches.count { end = min(end, launches[i + 1].second - 1) }
            if end <= launch.second { continue }  // as the day's events: the later launch stands
            screenOffUntil = max(screenOffUntil, end)
            guard launch.second - previousEnd > 60 else { continue }  // within a session
            signalTruth.sessions += 1
            var signalled = false
            if signalRng.chance(config.notificationProbability) {
                let at = launch.second - signalRng.int(60, 600)
                if at >= 0 {
                    day.append((at, launch.app, .notification))
                    signalTruth.notifiedLaunches += 1
                    signalled = true
                }
            }
            if signalRng.chance(config.unlockProbability) {
                let unlock = launch.second - signalRng.int(2, 20)
                let screenOn = unlock - signalRng.int(1, 3)
                if screenOn >= 0 {
                    day.append((screenOn, deviceApp, .screenOn))
                    day.append((unlock, deviceApp, .unlock))
                    signalTruth.unlockedSessions += 1
                    signalled = true
                }
            }
            if !signalled { signalTruth.sessionsWithoutSignal += 1 }
        }
        let awake = (Double(wake) * 60, Double(max(wake + 1, sleep)) * 60)
        for _ in 0..<signalRng.poisson(config.spuriousNotificationsPerDay) {
            let at = Int(signalRng.uniform(awake.0, awake.1))
            day.append((at, signalRng.int(0, truth.apps.count - 1), .notification))
            signalTruth.spuriousNotifications += 1
        }
        for _ in 0..<signalRng.poisson(config.glancesPerDay) {
            day.append((Int(signalRng.uniform(awake.0, awake.1)), deviceApp, .screenOn))
            signalTruth.glances += 1
        }
        day.sort { $0.second < $1.second }
        for e in day where e.second < Int(Seconds.perDay) {
            let (utc, offset) = clock.utc(secondsAfterMidnight: e.second)
            guard utc > lastSignalUTC else { continue }
            lastSignalUTC = utc
            events.append(SimulatedEvent(utc: utc, offset: offset, app: e.app, kind: e.kind))
        }
    }
}
