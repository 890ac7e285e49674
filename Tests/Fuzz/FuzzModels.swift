import Foundation
import OpenSwiftData

/// The models the fuzzed stores hold: every common attribute type, a unique attribute, a
/// cascading one-to-many, a many-to-many, an enum.
enum FuzzModels {
    static let types: [any PersistentModel.Type] = [FuzzOwner.self, FuzzItem.self, FuzzLabel.self]

    /// Owners with items and labels, written over several saves (so there is history), with an
    /// update and a delete among them.
    static func fill(_ container: ModelContainer) throws {
        let context = ModelContext(container)
        let labels = (0..<3).map { FuzzLabel(text: "label \($0)") }
        for number in 0..<5 {
            let owner = FuzzOwner(name: "owner \(number)", age: number * 7, score: Double(number) / 3)
            context.insert(owner)
            for index in 0..<3 {
                let item = FuzzItem(title: "item \(number).\(index)", count: Int64(index))
                owner.items.append(item)
                item.labels = [labels[(number + index) % labels.count]]
            }
            try context.save()
        }
        let first = try context.fetch(FetchDescriptor<FuzzOwner>(sortBy: [SortDescriptor(\.name)])).first
        first?.tags.append("updated")
        first?.price += 1
        try context.save()
        if let last = try context.fetch(FetchDescriptor<FuzzItem>(sortBy: [SortDescriptor(\.title, order: .reverse)])).first {
            context.delete(last)
        }
        try context.save()
    }
}

enum FuzzKind: String, Codable, CaseIterable {
    case plain, special
}

@Model final class FuzzOwner {
    @Attribute(.unique) var name: String
    var age: Int
    var score: Double
    var flag: Bool = false
    var born: Date = Date(timeIntervalSinceReferenceDate: 1_000)
    var photo: Data?
    var tags: [String] = ["a", "b"]
    var price: Decimal = Decimal(string: "19.99") ?? 0
    var code: UUID = UUID()
    var kind: FuzzKind = FuzzKind.plain
    @Relationship(deleteRule: .cascade, inverse: \FuzzItem.owner) var items: [FuzzItem] = []

    init(name: String, age: Int, score: Double) {
        self.name = name
        self.age = age
        self.score = score
    }
}

@Model final class FuzzItem {
    var title: String
    var count: Int64
    var owner: FuzzOwner?
    var labels: [FuzzLabel] = []

    init(title: String, count: Int64) {
        self.title = title
        self.count = count
    }
}

@Model final class FuzzLabel {
    var text: String
    @Relationship(inverse: \FuzzItem.labels) var items: [FuzzItem] = []

    init(text: String) { self.text = text }
}
