import Foundation
@testable import OpenSwiftData
import Testing
import TestModels

/// Test support for the SwiftData store in `../shared/fixtures/swiftdata-apple-store/`, whose
/// models (`ResourcesManager` in TestModels) the fuzzer uses too.
extension ResourcesManager {
    /// The same entities without their relationships: not the model that wrote the file.
    enum Trimmed {
        @Model final class Item {
            var name: String
            init(name: String) { self.name = name }
        }

        @Model final class Component {
            var id: UUID = UUID()
            var count: Int = 1
            init() {}
        }

        @Model final class CraftingRecipe {
            var producedItemCount: String = "1"
            init() {}
        }
    }

    /// `Item` with its name declared as a number.
    enum WrongType {
        @Model final class Item {
            var name: Int = 0
            init() {}
        }
    }

    /// A change as `kind Entity key [properties]`.
    static func describe(_ change: HistoryChange) -> String {
        let id = change.changedPersistentIdentifier
        let key = id.primaryKey.map(String.init) ?? "?"
        switch change {
        case .insert: return "insert \(id.entityName) \(key)"
        case .delete: return "delete \(id.entityName) \(key)"
        case .update(let update as any HistoryUpdate<CraftingRecipe>):
            return "update \(id.entityName) \(key) " + update.updatedAttributes.map { name(of: $0) }.sorted().joined(separator: ",")
        case .update(let update as any HistoryUpdate<Item>):
            return "update \(id.entityName) \(key) " + update.updatedAttributes.map { name(of: $0) }.sorted().joined(separator: ",")
        case .update(let update as any HistoryUpdate<Component>):
            return "update \(id.entityName) \(key) " + update.updatedAttributes.map { name(of: $0) }.sorted().joined(separator: ",")
        case .update:
            return "update \(id.entityName) \(key)"
        }
    }

    static func name<Model: PersistentModel>(of keyPath: any PartialKeyPath<Model> & Sendable) -> String {
        Model.schemaMetadata.first { $0.keypath == keyPath as AnyKeyPath }?.name ?? "?"
    }

    static let skipReason: Comment = "the SwiftData store fixture is not at ../shared/fixtures/swiftdata-apple-store/default.store beside the project; place the shared folder there (CI does) to run these tests"
}

/// Models for the stores the tests build in Core Data's documented layout, for what the SwiftData
/// fixture lacks: many-to-many relationships, an entity hierarchy, and more kinds of values.
enum CoreDataLayoutModels {
    enum Status: String, Codable {
        case draft, published
    }

    @Model final class Article {
        var title: String
        var subtitle: String?
        var published: Date
        var revised: Date?
        var rating: Double
        var isFeatured: Bool
        var price: Decimal
        var status: Status
        var reference: UUID
        var keywords: [String] = []
        @Relationship(inverse: \Tag.articles) var tags: [Tag] = []

        init(title: String, published: Date, rating: Double, isFeatured: Bool, price: Decimal, status: Status, reference: UUID) {
            self.title = title
            self.published = published
            self.rating = rating
            self.isFeatured = isFeatured
            self.price = price
            self.status = status
            self.reference = reference
        }
    }

    @Model final class Tag {
        var name: String
        var articles: [Article] = []

        init(name: String) {
            self.name = name
        }
    }

    @Model class Vehicle {
        var name: String
        init(name: String) { self.name = name }
    }

    @Model final class Car: Vehicle {
        var doors: Int
        init(name: String, doors: Int) {
            self.doors = doors
            super.init(name: name)
        }
    }

    @Model final class Bike: Vehicle {
        var gears: Int
        init(name: String, gears: Int) {
            self.gears = gears
            super.init(name: name)
        }
    }

    static let types: [any PersistentModel.Type] = [Article.self, Tag.self, Vehicle.self, Car.self, Bike.self]
}

/// A model with data Core Data may keep outside the file.
enum ExternalStorageModels {
    @Model final class Photo {
        @Attribute(.externalStorage) var image: Data
        init(image: Data) { self.image = image }
    }

    /// A plain `Data` attribute with the name `Photo`'s external one has.
    @Model final class Sketch {
        var image: Data
        init(image: Data) { self.image = image }
    }
}

/// Models with `Codable` structs, which SwiftData keeps as composite attributes on Apple
/// platforms (a column per field, nested structs flattened).
enum CompositeModels {
    struct Location: Codable, Hashable {
        var latitude: Double
        var longitude: Double
    }

    struct Address: Codable, Hashable {
        var street: String
        var city: String
        var zip: Int?
        var verified: Bool
        var id: UUID
        var since: Date
        var location: Location?
    }

    @Model final class Place {
        var name: String
        var address: Address
        init(name: String, address: Address) {
            self.name = name
            self.address = address
        }
    }

    struct Label: Codable, Hashable {
        var name: String
    }

    /// Its label's field needs the column `ZNAME` its own `name` has.
    @Model final class Sign {
        var name: String
        var label: Label
        init(name: String, label: Label) {
            self.name = name
            self.label = label
        }
    }
}
