import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData

/// A link in a chain: a to-one relationship without an inverse.
@Model
final class ChainLink {
    var number: Int
    @Relationship(deleteRule: .noAction) var next: ChainLink?

    init(number: Int, next: ChainLink? = nil) {
        self.number = number
        self.next = next
    }
}

/// Letting go of models that hold each other releases them without nesting one release in another.
@Suite struct ModelReleaseTests {
    static let length = 100_000

    /// The JSON example store rewrites and rereads its whole file, and filters and sorts in
    /// memory; a shorter chain keeps its run short (the release path is the same for every store).
    private static func length(_ kind: StoreKind) -> Int { kind == .json ? 10_000 : length }

    private func chain(_ length: Int = Self.length) -> ChainLink {
        var head = ChainLink(number: 0)
        for number in 1..<length { head = ChainLink(number: number, next: head) }
        return head
    }

    @Test func aLongUnsavedChainIsReleasedWithoutOverflowingTheStack() {
        weak var last: ChainLink?
        do {
            let head = chain()
            var tail = head
            while let next = tail.next { tail = next }
            last = tail
            #expect(last?.number == 0)
        }
        // Everything was released: the model at the far end is gone.
        #expect(last == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func aLongSavedChainIsReleasedAndReadBack(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [ChainLink.self])
        do {
            let context = store.context()
            context.insert(chain(Self.length(kind)))
            try context.save()
        }
        let context = store.context()
        var descriptor = FetchDescriptor<ChainLink>(predicate: #Predicate { $0.number == 0 })
        descriptor.fetchLimit = 1
        #expect(try context.fetch(descriptor).first?.next == nil)
        #expect(try context.fetchCount(FetchDescriptor<ChainLink>()) == Self.length(kind))
        do {
            // Every link loaded and linked in memory, then let go at once.
            let links = try context.fetch(FetchDescriptor<ChainLink>(sortBy: [SortDescriptor(\.number)]))
            #expect(links.last?.next?.number == Self.length(kind) - 2)
        }
    }
}
