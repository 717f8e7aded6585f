import Dispatch

/// Maps over an array on all cores, results in order.
public enum ParallelMap {
    public static func map<T: Sendable, R: Sendable>(_ items: [T], _ body: @Sendable (T) -> R) -> [R] {
        let box = Box<R>(count: items.count)
        DispatchQueue.concurrentPerform(iterations: items.count) { i in box.set(i, body(items[i])) }
        return box.values()
    }

    /// One slot per item: each iteration writes its own slot only, so no two threads touch the
    /// same memory, and `concurrentPerform` returns after every write.
    final class Box<R>: @unchecked Sendable {
        private let slots: UnsafeMutableBufferPointer<R?>
        init(count: Int) {
            slots = .allocate(capacity: count)
            slots.initialize(repeating: nil)
        }
        deinit {
            slots.deinitialize()
            slots.deallocate()
        }
        func set(_ i: Int, _ v: R) { slots[i] = v }
        func values() -> [R] { slots.map { $0! } }
    }
}
