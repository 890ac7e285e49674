import Foundation
import Testing
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

    private func chain() -> ChainLink {
        var head = ChainLink(number: 0)
        for number in 1..<Self.length { head = ChainLink(number: number, next: head) }
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
            context.insert(chain())
            try context.save()
        }
        let context = store.context()
        var descriptor = FetchDescriptor<ChainLink>(predicate: #Predicate { $0.number == 0 })
        descriptor.fetchLimit = 1
        #expect(try context.fetch(descriptor).first?.next == nil)
        #expect(try context.fetchCount(FetchDescriptor<ChainLink>()) == Self.length)
        do {
            // Every link loaded and linked in memory, then let go at once.
            let links = try context.fetch(FetchDescriptor<ChainLink>(sortBy: [SortDescriptor(\.number)]))
            #expect(links.last?.next?.number == Self.length - 2)
        }
    }
}
