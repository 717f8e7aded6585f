import FetchLabCore
import FetchLabSimulation
import Foundation

/// Histories as compact bytes, to be kept in a ``FileRecordStore`` by the process that wrote them and
/// read back exactly (not a file format: nothing else reads them). Times are stored as varint
/// differences from the previous one, small numbers as varints, a battery level as its 64 bits.
///
/// An app's content updates are the same for every user of it (a store hands each user the same
/// array), so a codec keeps each app's first array (sharing its storage) and writes only a mark
/// for a user whose array is the same; a decoded history shares that array again. Another array
/// is written whole.
///
/// Encoding remembers arrays, so one codec encodes every history it will decode; decoding
/// changes nothing and is safe from several threads at once.
public struct HistoryCodec: HistoryCoding {
    /// Each app's content updates, as the first history holding the app had them.
    private var updates: [AppID: [Instant]] = [:]

    public init() {}

    /// `history` as bytes for ``decode(_:)``.
    public mutating func encode(_ history: UserHistory) -> [UInt8] {
        var w = ByteWriter()
        w.string(history.user.name)
        w.varint(UInt64(history.apps.count))
        for (app, times) in zip(history.apps, history.updateTimes) {
            w.string(app.name)
            if updates[app] == nil { updates[app] = times }
            if updates[app]! == times {
                w.varint(0)
            } else {
                w.varint(1)
                w.list(times, time: { $0 }) { _, _ in }
            }
        }
        for events in [history.launches, history.events] {
            w.list(events, time: \.time) { w, e in
                w.signed(Int64(e.user))
                w.signed(Int64(e.app))
                w.varint(UInt64(e.kind.rawValue))
                w.optional(e.utcOffset.map(Int64.init))
            }
        }
        w.list(history.context, time: \.time) { w, c in
            w.signed(Int64(c.user))
            // Which fields are known, and the three flags' values.
            var known: UInt8 = 0
            var flags: UInt8 = 0
            for (i, flag) in [c.charging, c.lowPower, c.screenOn].enumerated() {
                guard let flag else { continue }
                known |= 1 << i
                if flag { flags |= 1 << i }
            }
            if c.battery != nil { known |= 1 << 3 }
            if c.network != nil { known |= 1 << 4 }
            if c.utcOffset != nil { known |= 1 << 5 }
            w.byte(known)
            w.byte(flags)
            if let battery = c.battery { w.raw(battery.bitPattern) }
            if let network = c.network { w.varint(UInt64(network.rawValue)) }
            if let offset = c.utcOffset { w.signed(Int64(offset)) }
        }
        return w.bytes
    }

    /// The history `bytes` (from ``encode(_:)`` of this codec) hold.
    public func decode(_ bytes: UnsafeRawBufferPointer) -> UserHistory {
        var r = ByteReader(bytes: bytes)
        let user = UserID(r.string())
        let appCount = Int(r.varint())
        var apps: [AppID] = []
        var updateTimes: [[Instant]] = []
        apps.reserveCapacity(appCount)
        updateTimes.reserveCapacity(appCount)
        for _ in 0..<appCount {
            let app = AppID(r.string())
            apps.append(app)
            updateTimes.append(r.varint() == 0 ? updates[app]! : r.list { _, time in time })
        }
        func events() -> [UsageEvent] {
            r.list { r, time in
                let user = Int32(r.signed())
                let app = Int32(r.signed())
                let kind = UsageEventKind(rawValue: Int(r.varint()))!
                let offset = r.optional().map { Int32($0) }
                return UsageEvent(time: time, user: user, app: app, kind: kind, utcOffset: offset)
            }
        }
        let launches = events()
        let others = events()
        let context = r.list { r, time -> ContextSample in
            let user = Int32(r.signed())
            let known = r.byte()
            let flags = r.byte()
            func flag(_ i: Int) -> Bool? { known & (1 << i) != 0 ? flags & (1 << i) != 0 : nil }
            let battery = known & (1 << 3) != 0 ? Double(bitPattern: r.raw()) : nil
            let network = known & (1 << 4) != 0 ? NetworkType(rawValue: Int(r.varint()))! : nil
            let offset = known & (1 << 5) != 0 ? Int32(r.signed()) : nil
            return ContextSample(
                time: time, user: user, battery: battery, charging: flag(0), network: network, lowPower: flag(1),
                screenOn: flag(2), utcOffset: offset)
        }
        return UserHistory(
            user: user, apps: apps, launches: launches, events: others, context: context, updateTimes: updateTimes)
    }
}

/// Bytes appended: LEB128 varints, zigzag for signed numbers.
private struct ByteWriter {
    var bytes: [UInt8] = []

    mutating func byte(_ b: UInt8) { bytes.append(b) }

    mutating func varint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    mutating func signed(_ value: Int64) { varint(UInt64(bitPattern: (value << 1) ^ (value >> 63))) }

    mutating func raw(_ value: UInt64) {
        for i in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * i))) }
    }

    /// `xs`: their count, then each one's time as its difference from the one before (the first's
    /// from 0), followed by what `rest` writes of it.
    mutating func list<T>(_ xs: [T], time: (T) -> Instant, _ rest: (inout ByteWriter, T) -> Void) {
        varint(UInt64(xs.count))
        var last: Int64 = 0
        for x in xs {
            let t = time(x).sinceEpoch.value
            signed(t &- last)
            last = t
            rest(&self, x)
        }
    }

    mutating func optional(_ value: Int64?) {
        guard let value else { return byte(0) }
        byte(1)
        signed(value)
    }

    mutating func string(_ s: String) {
        let utf8 = Array(s.utf8)
        varint(UInt64(utf8.count))
        bytes += utf8
    }
}

/// ``ByteWriter``'s bytes read back in the order written.
private struct ByteReader {
    let bytes: UnsafeRawBufferPointer
    var at = 0

    mutating func byte() -> UInt8 {
        defer { at += 1 }
        return bytes[at]
    }

    mutating func varint() -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let b = byte()
            value |= UInt64(b & 0x7F) << shift
            if b < 0x80 { return value }
            shift += 7
        }
    }

    mutating func signed() -> Int64 {
        let v = varint()
        return Int64(bitPattern: v >> 1) ^ -Int64(bitPattern: v & 1)
    }

    mutating func raw() -> UInt64 {
        var value: UInt64 = 0
        for i in 0..<8 { value |= UInt64(byte()) << (8 * UInt64(i)) }
        return value
    }

    /// A ``ByteWriter/list(_:time:_:)``: each element made by `element` from the reader (past its
    /// time) and its time.
    mutating func list<T>(_ element: (inout ByteReader, Instant) -> T) -> [T] {
        let count = Int(varint())
        var out: [T] = []
        out.reserveCapacity(count)
        var last: Int64 = 0
        for _ in 0..<count {
            last = last &+ signed()
            out.append(element(&self, Instant(sinceEpoch: Microseconds(last))))
        }
        return out
    }

    mutating func optional() -> Int64? { byte() == 0 ? nil : signed() }

    mutating func string() -> String {
        let count = Int(varint())
        defer { at += count }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[at..<(at + count)]), as: UTF8.self)
    }
}

extension HistorySpill {
    /// Histories as ``HistoryCodec`` bytes in unlinked temporary files in `directory`
    /// (``FileRecordStorage``): what `tune` gives `Tuner.keeping(limit:bytes:spill:after:)`.
    public static func files(directory: String = NSTemporaryDirectory()) -> HistorySpill {
        HistorySpill(storage: FileRecordStorage(directory: directory), codec: HistoryCodec())
    }
}
