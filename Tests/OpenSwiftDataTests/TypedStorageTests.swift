import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData

/// A model keeps its values unboxed, each in the bytes its property's type needs (see
/// `SlotStorageLayout`). Every kind of value must read back as it was assigned — in the context
/// that holds it, after a save in a fresh context, after being replaced, and after a rollback —
/// whether it is kept as plain data, a string, a value with references inside, a large struct or
/// a relationship.
@Suite struct TypedStorageTests {
    enum Mood: String, Codable { case calm, busy }

    /// Larger than an `Any`'s inline buffer (three words), with references inside.
    struct Span: Codable, Equatable {
        var name: String
        var from: Date
        var to: Date
        var tags: [String]
        var weight: Double
    }

    @Model final class Shelf {
        var label: String
        @Relationship(deleteRule: .cascade, inverse: \Holder.shelf) var holders: [Holder] = []
        init(label: String) { self.label = label }
    }

    @Model final class Holder {
        var count: Int
        var big: Int64
        var ratio: Double
        var title: String
        var when: Date
        var flag: Bool
        var maybeCount: Int?
        var maybeBig: Int64?
        var maybeRatio: Double?
        var maybeTitle: String?
        var maybeWhen: Date?
        var maybeFlag: Bool?
        var id: UUID
        var bytes: Data
        var mood: Mood
        var span: Span
        var words: [String]
        var shelf: Shelf?

        init(_ seed: Int, shelf: Shelf?) {
            count = seed
            big = Int64(seed) << 40
            ratio = Double(seed) / 4
            title = "a title long enough to live outside the string's own bytes, number \(seed)"
            when = Date(timeIntervalSinceReferenceDate: Double(seed) * 1_000)
            flag = seed % 2 == 0
            maybeCount = seed % 2 == 0 ? seed : nil
            maybeBig = seed % 2 == 0 ? nil : Int64(seed)
            maybeRatio = seed % 2 == 0 ? Double(seed) : nil
            maybeTitle = seed % 2 == 0 ? nil : "t\(seed)"
            maybeWhen = seed % 2 == 0 ? Date(timeIntervalSinceReferenceDate: Double(seed)) : nil
            maybeFlag = seed % 2 == 0 ? nil : true
            id = UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", seed)) ?? UUID()
            bytes = Data([UInt8(seed % 256), 0, 255])
            mood = seed % 2 == 0 ? .calm : .busy
            span = Span(name: "span \(seed)", from: Date(timeIntervalSinceReferenceDate: 0), to: Date(timeIntervalSinceReferenceDate: Double(seed)), tags: ["x", "\(seed)"], weight: 0.5)
            words = ["w\(seed)", "another word"]
            self.shelf = shelf
        }
    }

    /// Every property of `holder` as a comparable text, in declaration order.
    static func describe(_ holder: Holder) -> [String] {
        [
            "\(holder.count)", "\(holder.big)", "\(holder.ratio)", holder.title, "\(holder.when.timeIntervalSinceReferenceDate)",
            "\(holder.flag)", "\(String(describing: holder.maybeCount))", "\(String(describing: holder.maybeBig))",
            "\(String(describing: holder.maybeRatio))", "\(String(describing: holder.maybeTitle))",
            "\(String(describing: holder.maybeWhen?.timeIntervalSinceReferenceDate))", "\(String(describing: holder.maybeFlag))",
            holder.id.uuidString, holder.bytes.base64EncodedString(), holder.mood.rawValue, "\(holder.span)", "\(holder.words)",
            holder.shelf?.label ?? "no shelf",
        ]
    }

    /// What `Holder(seed, shelf:)` holds, described as `describe` does.
    static func expected(_ seed: Int, shelf: String) -> [String] {
        let holder = Holder(seed, shelf: nil)
        var values = describe(holder)
        values[values.count - 1] = shelf
        return values
    }

    @Test(arguments: StoreKind.allCases)
    func everyKindOfValueReadsBackAsAssigned(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Shelf.self, Holder.self])
        let context = store.context()
        let shelf = Shelf(label: "top")
        context.insert(shelf)
        let holders = (1...4).map { Holder($0, shelf: shelf) }
        for holder in holders { context.insert(holder) }
        #expect(holders.map(Self.describe) == (1...4).map { Self.expected($0, shelf: "top") })
        try context.save()

        let fresh = store.context()
        let loaded = try fresh.fetch(FetchDescriptor<Holder>(sortBy: [SortDescriptor(\.count)]))
        #expect(loaded.map(Self.describe) == (1...4).map { Self.expected($0, shelf: "top") })
        #expect(try fresh.fetch(FetchDescriptor<Shelf>()).first?.holders.count == 4)
    }

    @Test(arguments: StoreKind.allCases)
    func replacedValuesAreTheNewOnesAndARollbackBringsBackTheOld(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Shelf.self, Holder.self])
        let context = store.context()
        let first = Shelf(label: "first"), second = Shelf(label: "second")
        context.insert(first)
        context.insert(second)
        context.insert(Holder(2, shelf: first))
        try context.save()

        let editing = store.context()
        let holder = try #require(try editing.fetch(FetchDescriptor<Holder>()).first)
        let shelves = try editing.fetch(FetchDescriptor<Shelf>(sortBy: [SortDescriptor(\.label)]))
        // Every property replaced several times: each value written over the one before.
        for seed in [3, 5, 7] {
            let source = Holder(seed, shelf: nil)
            holder.count = source.count
            holder.big = source.big
            holder.ratio = source.ratio
            holder.title = source.title
            holder.when = source.when
            holder.flag = source.flag
            holder.maybeCount = source.maybeCount
            holder.maybeBig = source.maybeBig
            holder.maybeRatio = source.maybeRatio
            holder.maybeTitle = source.maybeTitle
            holder.maybeWhen = source.maybeWhen
            holder.maybeFlag = source.maybeFlag
            holder.id = source.id
            holder.bytes = source.bytes
            holder.mood = source.mood
            holder.span = source.span
            holder.words = source.words
            holder.shelf = shelves[seed == 5 ? 0 : 1]
        }
        #expect(Self.describe(holder) == Self.expected(7, shelf: "second"))
        editing.rollback()
        #expect(Self.describe(holder) == Self.expected(2, shelf: "first"))

        holder.title = "saved title"
        holder.maybeTitle = nil
        holder.span.tags.append("appended")
        try editing.save()
        let fresh = try #require(try store.context().fetch(FetchDescriptor<Holder>()).first)
        var expected = Self.expected(2, shelf: "first")
        expected[3] = "saved title"
        expected[9] = "nil"
        var span = Holder(2, shelf: nil).span
        span.tags.append("appended")
        expected[15] = "\(span)"
        #expect(Self.describe(fresh) == expected)
    }

    /// A model whose values fit (`Shelf`: a string and a to-many) keeps them in its backing
    /// data's own allocation, where its first stored property lies — not in a copy of it elsewhere,
    /// which a change in how Swift lays out or addresses a class's stored properties would make
    /// (and a value written there would be lost). One whose values do not fit (`Holder`) has a
    /// block of its own. Both read back after a save.
    @Test(arguments: StoreKind.allCases)
    func smallModelsKeepTheirValuesInTheirBackingDatasOwnAllocation(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Shelf.self, Holder.self])
        let context = store.context()
        let shelf = Shelf(label: "inline")
        let holder = Holder(9, shelf: shelf)
        context.insert(shelf)
        try context.save()

        func offset(_ data: BackingData) -> Int {
            data.storage - UnsafeMutableRawPointer(Unmanaged.passUnretained(data).toOpaque())
        }
        let header = 2 * MemoryLayout<Int>.size
        #expect(shelf.persistentBackingData.storageLayout.fitsInline)
        #expect(offset(shelf.persistentBackingData) == header)
        #expect(!holder.persistentBackingData.storageLayout.fitsInline)
        #expect(offset(holder.persistentBackingData) != header)

        let fresh = store.context()
        let loaded = try #require(try fresh.fetch(FetchDescriptor<Shelf>()).first)
        #expect(offset(loaded.persistentBackingData) == header)
        #expect(loaded.label == "inline")
        #expect(loaded.holders.map(Self.describe) == [Self.expected(9, shelf: "inline")])
    }
}
