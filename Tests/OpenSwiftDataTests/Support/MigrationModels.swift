import Foundation
import OpenSwiftData

// Versions of the same entities for SchemaMigrationTests. The entity name is the class name, so
// NotesV1.Note and NotesV2.Note are two versions of the entity Note.

// MARK: A plan: V1 → V2 (lightweight) → V3 (custom)

enum NotesV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Note.self, Folder.self] }

    @Model final class Note {
        var title: String
        var body: String
        var priority: Int
        var folder: Folder?
        init(title: String, body: String = "", priority: Int = 0, folder: Folder? = nil) {
            self.title = title
            self.body = body
            self.priority = priority
            self.folder = folder
        }
    }

    @Model final class Folder {
        var name: String
        @Relationship(inverse: \Note.folder) var notes: [Note] = []
        init(name: String) { self.name = name }
    }
}

enum NotesV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Note.self, Folder.self] }

    @Model final class Note {
        @Attribute(originalName: "title") var heading: String
        var priority: Double
        var tags: [String]?
        var pinned: Bool = false
        var folder: Folder?
        init(heading: String, priority: Double = 0, folder: Folder? = nil) {
            self.heading = heading
            self.priority = priority
            self.folder = folder
        }
    }

    @Model final class Folder {
        var name: String
        var colour: String = "blue"
        @Relationship(inverse: \Note.folder) var notes: [Note] = []
        init(name: String) { self.name = name }
    }
}

enum NotesV3: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(3, 0, 0) }
    static var models: [any PersistentModel.Type] { [Note.self, Folder.self] }

    @Model final class Note {
        @Attribute(originalName: "title") var heading: String
        var priority: Double
        var tags: [String]?
        var pinned: Bool = false
        var folder: Folder?
        init(heading: String, priority: Double = 0, folder: Folder? = nil) {
            self.heading = heading
            self.priority = priority
            self.folder = folder
        }
    }

    @Model final class Folder {
        @Attribute(.unique) var name: String
        var colour: String = "blue"
        @Relationship(inverse: \Note.folder) var notes: [Note] = []
        init(name: String) { self.name = name }
    }
}

/// V1 → V2 lightweight; V2 → V3 merges folders with the same name (moving their notes to the
/// first) before `name` becomes unique, then pins every note in a merged folder.
enum NotesPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [NotesV1.self, NotesV2.self, NotesV3.self] }
    static var stages: [MigrationStage] { [v1ToV2, v2ToV3] }

    static let v1ToV2 = MigrationStage.lightweight(fromVersion: NotesV1.self, toVersion: NotesV2.self)
    static let v2ToV3 = MigrationStage.custom(fromVersion: NotesV2.self, toVersion: NotesV3.self, willMigrate: { context in
        var kept: [String: NotesV2.Folder] = [:]
        for folder in try context.fetch(FetchDescriptor<NotesV2.Folder>(sortBy: [SortDescriptor(\.name)])) {
            if let first = kept[folder.name] {
                for note in folder.notes { note.folder = first }
                first.colour = "merged"
                context.delete(folder)
            } else {
                kept[folder.name] = folder
            }
        }
        try context.save()
    }, didMigrate: { context in
        for folder in try context.fetch(FetchDescriptor<NotesV3.Folder>(predicate: #Predicate { $0.colour == "merged" })) {
            for note in folder.notes { note.pinned = true }
        }
    })
}

/// The same versions, but its custom stage saves a change and then throws.
enum FailingNotesPlan: SchemaMigrationPlan {
    struct Refused: Error {}
    static var schemas: [any VersionedSchema.Type] { [NotesV1.self, NotesV2.self, NotesV3.self] }
    static var stages: [MigrationStage] {
        [NotesPlan.v1ToV2, .custom(fromVersion: NotesV2.self, toVersion: NotesV3.self, willMigrate: { context in
            for folder in try context.fetch(FetchDescriptor<NotesV2.Folder>()) { context.delete(folder) }
            try context.save()
            throw Refused()
        }, didMigrate: nil)]
    }
}

/// Lists every version but has no stage from V1.
enum GappedNotesPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [NotesV1.self, NotesV2.self, NotesV3.self] }
    static var stages: [MigrationStage] { [NotesPlan.v2ToV3] }
}

/// Lists every version and no stage at all, as apps often ship.
enum StagelessNotesPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [NotesV1.self, NotesV2.self, NotesV3.self] }
    static var stages: [MigrationStage] { [] }
}

/// A custom V1 → V2 stage that merges folders with the same name, and no stage from V2.
enum EarlyCustomNotesPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [NotesV1.self, NotesV2.self, NotesV3.self] }
    static var stages: [MigrationStage] {
        [.custom(fromVersion: NotesV1.self, toVersion: NotesV2.self, willMigrate: { context in
            var kept: [String: NotesV1.Folder] = [:]
            for folder in try context.fetch(FetchDescriptor<NotesV1.Folder>(sortBy: [SortDescriptor(\.name)])) {
                if let first = kept[folder.name] {
                    for note in folder.notes { note.folder = first }
                    context.delete(folder)
                } else {
                    kept[folder.name] = folder
                }
            }
        }, didMigrate: nil)]
    }
}

/// Knows only V2 and V3.
enum LaterNotesPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [NotesV2.self, NotesV3.self] }
    static var stages: [MigrationStage] { [NotesPlan.v2ToV3] }
}

// MARK: Automatic lightweight migrations (no plan)

enum ShelfA {
    @Model final class Item {
        var name: String
        var note: String?
        var count: Int
        var obsolete: String
        var rating: Int
        var shelf: Shelf?
        var retired: Retired?
        @Relationship(inverse: \Label.items) var oldLabels: [Label] = []
        init(name: String, note: String? = nil, count: Int = 0, obsolete: String = "x", rating: Int = 3) {
            self.rating = rating
            self.name = name
            self.note = note
            self.count = count
            self.obsolete = obsolete
        }
    }

    @Model final class Shelf {
        var name: String
        @Relationship(inverse: \Item.shelf) var items: [Item] = []
        init(name: String) { self.name = name }
    }

    @Model final class Label {
        var text: String
        var items: [Item] = []
        init(text: String) { self.text = text }
    }

    @Model final class Retired {
        var value: Int
        init(value: Int) { self.value = value }
    }
}

enum ShelfB {
    @Model final class Item {
        @Attribute(originalName: "name") var title: String
        var note: String = "none"
        var count: Double
        var added: String?
        var addedWithDefault: Int = 7
        var rating: Int?
        var shelf: Shelf?
        var arrival: Arrival?
        @Relationship(originalName: "oldLabels", inverse: \Label.items) var labels: [Label] = []
        init(title: String, count: Double = 0) {
            self.title = title
            self.count = count
        }
    }

    @Model final class Shelf {
        #Index<Shelf>([\.name])
        var name: String
        @Relationship(deleteRule: .cascade, inverse: \Item.shelf) var items: [Item] = []
        init(name: String) { self.name = name }
    }

    @Model final class Label {
        var text: String
        var items: [Item] = []
        init(text: String) { self.text = text }
    }

    @Model final class Arrival {
        var value: Int
        init(value: Int) { self.value = value }
    }
}

/// ShelfB with `added` made non-optional with a default: the table is rebuilt, and the columns
/// that keep their declared defaults are copied as they are.
enum ShelfC {
    @Model final class Item {
        @Attribute(originalName: "name") var title: String
        var note: String = "none"
        var count: Double
        var added: String = "unset"
        var addedWithDefault: Int = 7
        var rating: Int?
        var shelf: Shelf?
        var arrival: Arrival?
        @Relationship(originalName: "oldLabels", inverse: \Label.items) var labels: [Label] = []
        init(title: String, count: Double = 0) {
            self.title = title
            self.count = count
        }
    }

    @Model final class Shelf {
        #Index<Shelf>([\.name])
        var name: String
        @Relationship(deleteRule: .cascade, inverse: \Item.shelf) var items: [Item] = []
        init(name: String) { self.name = name }
    }

    @Model final class Label {
        var text: String
        var items: [Item] = []
        init(text: String) { self.text = text }
    }

    @Model final class Arrival {
        var value: Int
        init(value: Int) { self.value = value }
    }
}

/// Pets with one owner, then several, then one again.
enum PetsOneOwner {
    @Model final class Pet {
        var name: String
        var owner: Owner?
        init(name: String, owner: Owner? = nil) {
            self.name = name
            self.owner = owner
        }
    }

    @Model final class Owner {
        var name: String
        @Relationship(inverse: \Pet.owner) var pets: [Pet] = []
        init(name: String) { self.name = name }
    }
}

/// A yard with one list of plants, then (`YardTwoLists`) with a second naming the same inverse.
enum YardOneList {
    @Model final class Yard {
        var name: String
        @Relationship(inverse: \Plant.yard) var leadingPlants: [Plant] = []
        init(name: String) { self.name = name }
    }

    @Model final class Plant {
        var name: String
        var yard: Yard?
        init(name: String, yard: Yard? = nil) {
            self.name = name
            self.yard = yard
        }
    }
}

enum YardTwoLists {
    @Model final class Yard {
        var name: String
        @Relationship(inverse: \Plant.yard) var leadingPlants: [Plant] = []
        @Relationship(inverse: \Plant.yard) var trailingPlants: [Plant] = []
        init(name: String) { self.name = name }
    }

    @Model final class Plant {
        var name: String
        var yard: Yard?
        init(name: String) { self.name = name }
    }
}

enum PetsManyOwners {
    @Model final class Pet {
        var name: String
        var owners: [Owner] = []
        init(name: String) { self.name = name }
    }

    @Model final class Owner {
        var name: String
        @Relationship(originalName: "pets", inverse: \Pet.owners) var pets: [Pet] = []
        init(name: String) { self.name = name }
    }
}

enum PetsBackToOne {
    @Model final class Pet {
        var name: String
        @Relationship(originalName: "owners") var owner: Owner?
        init(name: String) { self.name = name }
    }

    @Model final class Owner {
        var name: String
        @Relationship(inverse: \Pet.owner) var pets: [Pet] = []
        init(name: String) { self.name = name }
    }
}

/// A code gets a unique constraint; then loses it.
enum CodesPlain {
    @Model final class Code {
        var value: String
        var count: Int
        init(value: String, count: Int = 0) {
            self.value = value
            self.count = count
        }
    }
}

enum CodesUnique {
    @Model final class Code {
        #Unique<Code>([\.value])
        var value: String
        var count: Int
        init(value: String, count: Int = 0) {
            self.value = value
            self.count = count
        }
    }
}

enum CodesWithMemo {
    @Model final class Code {
        var value: String
        var count: Int
        var memo: String?
        init(value: String, count: Int = 0, memo: String? = nil) {
            self.value = value
            self.count = count
            self.memo = memo
        }
    }

    @Model final class Memo {
        var text: String
        init(text: String) { self.text = text }
    }
}

/// Memo and Code.memo removed by a plan that lists both versions.
enum CodesMemoV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [CodesWithMemo.Code.self, CodesWithMemo.Memo.self] }
}

enum CodesMemoV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [CodesPlain.Code.self] }
}

enum CodesMemoPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [CodesMemoV1.self, CodesMemoV2.self] }
    static var stages: [MigrationStage] { [] }
}

/// A downgrade from V2 back to V1, its schemas listed oldest first, as plans usually are.
enum CodesMemoDowngradePlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [CodesMemoV1.self, CodesMemoV2.self] }
    static var stages: [MigrationStage] {
        [.custom(fromVersion: CodesMemoV2.self, toVersion: CodesMemoV1.self, willMigrate: nil, didMigrate: { context in
            for code in try context.fetch(FetchDescriptor<CodesWithMemo.Code>()) { code.memo = "restored" }
            try context.save()
        })]
    }
}

/// Changes a lightweight migration refuses.
enum CodesRetyped {
    @Model final class Code {
        var value: Int
        var count: Int
        init(value: Int, count: Int = 0) {
            self.value = value
            self.count = count
        }
    }
}

enum CodesWithRequiredField {
    @Model final class Code {
        var value: String
        var count: Int
        var owner: String
        init(value: String, count: Int = 0, owner: String) {
            self.value = value
            self.count = count
            self.owner = owner
        }
    }
}

// MARK: Model inheritance: V1 (one class) → V2 (a subclass) → V3 (another subclass, and a new
// attribute of the first), each a lightweight stage

enum ExcursionsV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Excursion.self] }

    @Model final class Excursion {
        var name: String
        var hours: Int
        init(name: String, hours: Int) {
            self.name = name
            self.hours = hours
        }
    }
}

enum ExcursionsV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Excursion.self, GuidedExcursion.self] }

    @Model class Excursion {
        var name: String
        var hours: Int
        init(name: String, hours: Int) {
            self.name = name
            self.hours = hours
        }
    }

    @Model class GuidedExcursion: Excursion {
        var guide: String
        init(name: String, hours: Int, guide: String) {
            self.guide = guide
            super.init(name: name, hours: hours)
        }
    }
}

enum ExcursionsV3: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(3, 0, 0) }
    static var models: [any PersistentModel.Type] { [Excursion.self, GuidedExcursion.self, SelfGuidedExcursion.self] }

    @Model class Excursion {
        var name: String
        var hours: Int
        init(name: String, hours: Int) {
            self.name = name
            self.hours = hours
        }
    }

    @Model class GuidedExcursion: Excursion {
        var guide: String
        var language: String = "en"
        init(name: String, hours: Int, guide: String) {
            self.guide = guide
            super.init(name: name, hours: hours)
        }
    }

    @Model class SelfGuidedExcursion: Excursion {
        var app: String?
        init(name: String, hours: Int, app: String?) {
            self.app = app
            super.init(name: name, hours: hours)
        }
    }
}

enum ExcursionsPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [ExcursionsV1.self, ExcursionsV2.self, ExcursionsV3.self] }
    static var stages: [MigrationStage] {
        [.lightweight(fromVersion: ExcursionsV1.self, toVersion: ExcursionsV2.self),
         .lightweight(fromVersion: ExcursionsV2.self, toVersion: ExcursionsV3.self)]
    }
}
