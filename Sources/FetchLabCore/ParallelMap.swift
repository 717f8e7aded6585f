import Foundation

/// Maps over an array on all cores, results in order.
public enum ParallelMap {
    public static func map<T: Sendable, R: Sendable>(_ items: [T], _ body: @Sendable (T) -> R) -> [R] {
        let box = Box<R>(count: items.count)
        DispatchQueue.concurrentPerform(iterations: items.count) { i in box.set(i, body(items[i])) }
        return box.values()
    }

    final class Box<R>: @unchecked Sendable {
        private var slots: [R?]
        private let lock = NSLock()
        init(count: Int) { slots = Array(repeating: nil, count: count) }
        func set(_ i: Int, _ v: R) {
            lock.lock()
            slots[i] = v
            lock.unlock()
        }
        func values() -> [R] { slots.map { $0! } }
    }
}
