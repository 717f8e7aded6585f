/// Small logs with signal events (issue 26), shared by the store and CLI tests.
public enum SignalFixtures {
    /// A usage CSV of two users: u1 unlocks, turns the screen on, gets a notification for com.a
    /// and opens it; u2 unlocks and opens com.a (4 signals, 2 launches).
    public static let usage = """
        timestamp,user,app,event
        2024-03-01T12:00:00Z,u1,,unlock
        2024-03-01T12:00:01Z,u1,,screen_on
        2024-03-01T12:00:02Z,u1,com.a,notification
        2024-03-01T12:00:03Z,u1,com.a,launch
        2024-03-01T13:00:00Z,u2,,unlock
        2024-03-01T13:00:01Z,u2,com.a,launch

        """
}
