import Foundation
import OpenSwiftData

// Two versions of one schema that differ in every way the Migrations article lists, for
// SchemaDiffTests: each property of DiffV1.Shop becomes something else in DiffV2.Shop.

enum DiffV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Shop.self, Keeper.self, Tag.self, Legacy.self] }

    @Model final class Shop {
        #Unique<Shop>([\.code])
        #Index<Shop>([\.city])
        var code: String
        var city: String
        var rating: Int
        var label: String
        var nickname: String?
        var motto: String?
        var founded: Int
        var oldName: String
        var obsolete: Int
        var tags: [Tag] = []
        var helper: Keeper?
        @Relationship(deleteRule: .nullify) var keeper: Keeper?
        var partner: Keeper?
        var gone: Tag?

        init(code: String) {
            self.code = code
            city = ""
            rating = 0
            label = ""
            founded = 0
            oldName = ""
            obsolete = 0
        }
    }

    @Model final class Keeper {
        var name: String
        init(name: String) { self.name = name }
    }

    @Model final class Tag {
        var name: String
        init(name: String) { self.name = name }
    }

    @Model final class Legacy {
        var x: Int
        init(x: Int) { self.x = x }
    }
}

enum DiffV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Shop.self, Keeper.self, Tag.self, Newcomer.self] }

    @Model final class Shop {
        #Unique<Shop>([\.title])
        #Index<Shop>([\.rating])
        var code: String
        var city: String
        var rating: Double
        var label: Int
        var nickname: String = "none"
        var motto: String
        var founded: Int?
        @Attribute(originalName: "oldName") var title: String
        var added: String?
        var colour: String = "grey"
        var serial: Int
        var tags: Tag?
        var helper: [Keeper] = []
        @Relationship(deleteRule: .cascade) var keeper: Keeper?
        var partner: Tag?
        var friends: [Keeper] = []

        init(code: String) {
            self.code = code
            city = ""
            rating = 0
            label = 0
            motto = ""
            title = ""
            serial = 0
        }
    }

    @Model final class Keeper {
        var name: String
        init(name: String) { self.name = name }
    }

    @Model final class Tag {
        var name: String
        init(name: String) { self.name = name }
    }

    @Model final class Newcomer {
        var y: Int
        init(y: Int) { self.y = y }
    }
}

/// A plan that calls the step lightweight: the diff finds the change it cannot make.
enum DiffLightweightPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [DiffV1.self, DiffV2.self] }
    static var stages: [MigrationStage] { [.lightweight(fromVersion: DiffV1.self, toVersion: DiffV2.self)] }
}

/// The same step as a custom stage.
enum DiffCustomPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [DiffV1.self, DiffV2.self] }
    static var stages: [MigrationStage] { [.custom(fromVersion: DiffV1.self, toVersion: DiffV2.self, willMigrate: nil, didMigrate: nil)] }
}
