import Foundation
import Testing
import StoreTestSupport
import TestModels
@testable import OpenSwiftData

/// Schema evolution: a store written by one version of the models opens with the next, through a
/// SchemaMigrationPlan's stages or, without one, an automatic lightweight migration. Every check
/// reads values back through a fresh container; every refusal leaves the store as it was. Each
/// runs on an SQLite file and, with a server, on PostgreSQL.
@Suite struct SchemaMigrationTests {
    /// Kills in the killed-migration test: 6 by default (the CI size);
    /// `OPENSWIFTDATA_MIGRATION_KILLS=100 swift test --filter killedMigration` runs a long campaign.
    static let kills = ProcessInfo.processInfo.environment["OPENSWIFTDATA_MIGRATION_KILLS"].flatMap(Int.init) ?? 6
    // MARK: Helpers

    /// A new store of `kind` written with `types` (no plan), filled by `fill`.
    private func store(_ kind: MigrationPlaceKind, _ types: [any PersistentModel.Type], version: Schema.Version = Schema.Version(1, 0, 0), fill: (ModelContext) throws -> Void) throws -> MigrationPlace {
        let place = MigrationPlace(kind)
        let container = try ModelContainer(for: Schema(types, version: version), configurations: [try place.configuration()])
        let context = ModelContext(container)
        try fill(context)
        try context.save()
        return place
    }

    /// Opens the store at `place` with `schema`, recording the migration progress it reports.
    private func open(_ place: MigrationPlace, _ schema: Schema, plan: (any SchemaMigrationPlan.Type)? = nil) throws -> (container: ModelContainer, stages: [String]) {
        let events = Locked<[MigrationProgress]>([])
        let configuration = try place.configuration()
        let container = try MigrationProgress.observe({ progress in events.withLock { $0.append(progress) } }, during: {
            try ModelContainer(for: schema, migrationPlan: plan, configurations: [configuration])
        })
        let stages = events.withLock { $0.filter { $0.entityName == nil }.map(\.stageDescription) }
        return (container, stages)
    }

    private func v1Store(_ kind: MigrationPlaceKind) throws -> MigrationPlace {
        try store(kind, NotesV1.models, version: NotesV1.versionIdentifier) { context in
            let work = NotesV1.Folder(name: "Work")
            let workAgain = NotesV1.Folder(name: "Work")
            let home = NotesV1.Folder(name: "Home")
            context.insert(NotesV1.Note(title: "Plan", body: "gone", priority: 2, folder: work))
            context.insert(NotesV1.Note(title: "Budget", priority: 5, folder: workAgain))
            context.insert(NotesV1.Note(title: "Garden", priority: 1, folder: home))
            context.insert(NotesV1.Note(title: "Loose"))
        }
    }

    private func expectV1Intact(_ place: MigrationPlace) throws {
        let (container, stages) = try open(place, Schema(versionedSchema: NotesV1.self))
        #expect(stages.isEmpty)
        let notes = try ModelContext(container).fetch(FetchDescriptor<NotesV1.Note>(sortBy: [SortDescriptor(\.title)]))
        #expect(notes.map(\.title) == ["Budget", "Garden", "Loose", "Plan"])
        #expect(notes.map { $0.folder?.name } == ["Work", "Home", nil, "Work"])
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<NotesV1.Folder>()) == 3)
    }

    // MARK: Plans

    @Test(arguments: MigrationPlaceKind.allCases) func planRunsEveryStageFromV1ToV3(_ kind: MigrationPlaceKind) throws {
        let place = try v1Store(kind)
        let events = Locked<[MigrationProgress]>([])
        let container = try MigrationProgress.observe({ progress in events.withLock { $0.append(progress) } }, during: {
            try ModelContainer(for: Schema(versionedSchema: NotesV3.self), migrationPlan: NotesPlan.self, configurations: [try place.configuration()])
        })
        let progress = events.withLock { $0 }
        #expect(progress.filter { $0.entityName == nil }.map(\.stageDescription) == ["1.0.0 → 2.0.0, lightweight", "2.0.0 → 3.0.0, custom"])
        // The rows copied are reported, each table up to its total.
        let notes = progress.filter { $0.entityName == "Note" }
        #expect(notes.first?.completedRows == 0)
        #expect(notes.last.map { ($0.completedRows, $0.totalRows, $0.fractionCompleted) } ?? (0, 0, 0) == (4, 4, 1.0))
        #expect(progress.allSatisfy { $0.stageCount == 2 })

        let context = ModelContext(container)
        let migrated = try context.fetch(FetchDescriptor<NotesV3.Note>(sortBy: [SortDescriptor(\.heading)]))
        #expect(migrated.map(\.heading) == ["Budget", "Garden", "Loose", "Plan"])    // renamed from title
        #expect(migrated.map(\.priority) == [5, 1, 0, 2])                           // Int → Double
        #expect(migrated.allSatisfy { $0.tags == nil })                              // new optional
        #expect(migrated.map(\.pinned) == [true, false, false, true])                // default, then didMigrate
        let folders = try context.fetch(FetchDescriptor<NotesV3.Folder>(sortBy: [SortDescriptor(\.name)]))
        #expect(folders.map(\.name) == ["Home", "Work"])                             // duplicates merged
        #expect(folders.map(\.colour) == ["blue", "merged"])                         // default, then willMigrate
        #expect(folders[1].notes.map(\.heading).sorted() == ["Budget", "Plan"])

        // The new unique constraint holds: inserting "Home" again updates the existing folder.
        context.insert(NotesV3.Folder(name: "Home"))
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<NotesV3.Folder>()) == 2)
    }

    @Test(arguments: MigrationPlaceKind.allCases) func reopeningAMigratedStoreRunsNothing(_ kind: MigrationPlaceKind) throws {
        let place = try v1Store(kind)
        _ = try open(place, Schema(versionedSchema: NotesV3.self), plan: NotesPlan.self)
        let before = try place.contents()
        let (container, stages) = try open(place, Schema(versionedSchema: NotesV3.self), plan: NotesPlan.self)
        #expect(stages.isEmpty)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<NotesV3.Note>()) == 4)
        _ = container
        // SwiftData's other form names the current models rather than their version: the plan
        // tells which version they are, so nothing runs either.
        let events = Locked<[MigrationProgress]>([])
        let variadic = try MigrationProgress.observe({ progress in events.withLock { $0.append(progress) } }, during: {
            try ModelContainer(for: NotesV3.Note.self, NotesV3.Folder.self, migrationPlan: NotesPlan.self, configurations: try place.configuration())
        })
        #expect(events.withLock { $0.isEmpty })
        #expect(try ModelContext(variadic).fetchCount(FetchDescriptor<NotesV3.Folder>()) == 2)
        _ = variadic
        #expect(try place.contents() == before)
    }

    @Test(arguments: MigrationPlaceKind.allCases) func storeAtV2RunsOnlyTheStageFromV2(_ kind: MigrationPlaceKind) throws {
        let place = try store(kind, NotesV2.models, version: NotesV2.versionIdentifier) { context in
            let a = NotesV2.Folder(name: "Inbox")
            let b = NotesV2.Folder(name: "Inbox")
            context.insert(NotesV2.Note(heading: "One", priority: 1.5, folder: a))
            context.insert(NotesV2.Note(heading: "Two", folder: b))
        }
        let (container, stages) = try open(place, Schema(versionedSchema: NotesV3.self), plan: NotesPlan.self)
        #expect(stages == ["2.0.0 → 3.0.0, custom"])
        let folders = try ModelContext(container).fetch(FetchDescriptor<NotesV3.Folder>())
        #expect(folders.map(\.name) == ["Inbox"])
        #expect(folders[0].notes.map(\.heading).sorted() == ["One", "Two"])
        #expect(folders[0].notes.allSatisfy { $0.pinned })
    }

    @Test(arguments: MigrationPlaceKind.allCases) func failingCustomStageLeavesTheV1StoreIntact(_ kind: MigrationPlaceKind) throws {
        let place = try v1Store(kind)
        #expect(throws: FailingNotesPlan.Refused.self) {
            try ModelContainer(for: Schema(versionedSchema: NotesV3.self), migrationPlan: FailingNotesPlan.self, configurations: [try place.configuration()])
        }
        // The lightweight stage before it and the save inside it were undone with it.
        try expectV1Intact(place)
        // And the right plan still migrates it.
        let (container, _) = try open(place, Schema(versionedSchema: NotesV3.self), plan: NotesPlan.self)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<NotesV3.Folder>()) == 2)
    }

    // MARK: Plans with steps no stage covers (migrated as lightweight, as with no plan)

    @Test(arguments: MigrationPlaceKind.allCases) func planWithoutStagesMigratesEachStepLightweight(_ kind: MigrationPlaceKind) throws {
        let place = try store(kind, NotesV1.models, version: NotesV1.versionIdentifier) { context in
            context.insert(NotesV1.Note(title: "Plan", priority: 2, folder: NotesV1.Folder(name: "Work")))
            context.insert(NotesV1.Note(title: "Garden", priority: 1, folder: NotesV1.Folder(name: "Home")))
        }
        let (container, stages) = try open(place, Schema(versionedSchema: NotesV3.self), plan: StagelessNotesPlan.self)
        #expect(stages == ["1.0.0 → 2.0.0, lightweight, the plan has no stage for it", "2.0.0 → 3.0.0, lightweight, the plan has no stage for it"])
        let notes = try ModelContext(container).fetch(FetchDescriptor<NotesV3.Note>(sortBy: [SortDescriptor(\.heading)]))
        #expect(notes.map(\.heading) == ["Garden", "Plan"])
        #expect(notes.map(\.priority) == [1, 2])
        #expect(notes.map { $0.folder?.name } == ["Home", "Work"])
        // The store is at V3 now: reopening runs nothing, and V3's unique constraint holds.
        let (again, rerun) = try open(place, Schema(versionedSchema: NotesV3.self), plan: StagelessNotesPlan.self)
        #expect(rerun.isEmpty)
        let context = ModelContext(again)
        context.insert(NotesV3.Folder(name: "Home"))
        try context.save()
        #expect(try ModelContext(again).fetchCount(FetchDescriptor<NotesV3.Folder>()) == 2)
    }

    @Test(arguments: MigrationPlaceKind.allCases) func gapBeforeACustomStageIsLightweight(_ kind: MigrationPlaceKind) throws {
        // GappedNotesPlan has only the custom V2 → V3 stage; the V1 store has duplicate folders,
        // which that stage merges before V3's unique constraint.
        let place = try v1Store(kind)
        let (container, stages) = try open(place, Schema(versionedSchema: NotesV3.self), plan: GappedNotesPlan.self)
        #expect(stages == ["1.0.0 → 2.0.0, lightweight, the plan has no stage for it", "2.0.0 → 3.0.0, custom"])
        let folders = try ModelContext(container).fetch(FetchDescriptor<NotesV3.Folder>(sortBy: [SortDescriptor(\.name)]))
        #expect(folders.map(\.name) == ["Home", "Work"])
        #expect(folders[1].notes.map(\.heading).sorted() == ["Budget", "Plan"])
        #expect(folders[1].notes.allSatisfy { $0.pinned })
    }

    @Test(arguments: MigrationPlaceKind.allCases) func customStageInTheMiddleWithGapsAroundIt(_ kind: MigrationPlaceKind) throws {
        // V1 → V2 custom (merging the duplicates), V2 → V3 with no stage.
        let place = try v1Store(kind)
        let (container, stages) = try open(place, Schema(versionedSchema: NotesV3.self), plan: EarlyCustomNotesPlan.self)
        #expect(stages == ["1.0.0 → 2.0.0, custom", "2.0.0 → 3.0.0, lightweight, the plan has no stage for it"])
        let notes = try ModelContext(container).fetch(FetchDescriptor<NotesV3.Note>(sortBy: [SortDescriptor(\.heading)]))
        #expect(notes.map(\.heading) == ["Budget", "Garden", "Loose", "Plan"])
        #expect(notes.map { $0.folder?.name } == ["Work", "Home", nil, "Work"])
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<NotesV3.Folder>()) == 2)
    }

    @Test(arguments: MigrationPlaceKind.allCases) func gapALightweightMigrationCannotCrossIsRefusedByVersionUnchanged(_ kind: MigrationPlaceKind) throws {
        // V2 → V3 makes Folder.name unique; the V1 store has two "Work" folders and no stage merges them.
        let place = try v1Store(kind)
        let before = try place.contents()
        do {
            _ = try ModelContainer(for: Schema(versionedSchema: NotesV3.self), migrationPlan: StagelessNotesPlan.self, configurations: [try place.configuration()])
            Issue.record("a unique constraint over duplicates was added by a gap in the plan")
        } catch let error as SwiftDataError {
            #expect(error == .constraintViolation)
            #expect(error.message.contains("has no stage from 2.0.0 to 3.0.0"))
            #expect(error.message.contains("Folder.name"))
            #expect(error.message.contains(".custom(fromVersion: NotesV2.self, toVersion: NotesV3.self"))
        }
        #expect(try place.contents() == before)
        try expectV1Intact(place)
    }

    @Test(arguments: MigrationPlaceKind.allCases) func storeAtAVersionThePlanDoesNotListIsRefusedUnchanged(_ kind: MigrationPlaceKind) throws {
        let place = try v1Store(kind)
        let before = try place.contents()
        do {
            _ = try ModelContainer(for: Schema(versionedSchema: NotesV3.self), migrationPlan: LaterNotesPlan.self, configurations: [try place.configuration()])
            Issue.record("a store at an unlisted version opened")
        } catch let error as SwiftDataError {
            #expect(error == .unknownSchema)
            #expect(error.message.contains("does not list"))
        }
        #expect(try place.contents() == before)
    }

    @Test(arguments: MigrationPlaceKind.allCases) func newerStoreIsRefusedUnchanged(_ kind: MigrationPlaceKind) throws {
        let place = try v1Store(kind)
        _ = try open(place, Schema(versionedSchema: NotesV3.self), plan: NotesPlan.self)
        let before = try place.contents()
        // An older app (its current version is V2) with the same plan.
        do {
            _ = try ModelContainer(for: Schema(versionedSchema: NotesV2.self), migrationPlan: NotesPlan.self, configurations: [try place.configuration()])
            Issue.record("an older app opened a newer store")
        } catch let error as SwiftDataError {
            #expect(error == .backwardMigration)
            #expect(error.message.contains("3.0.0"))
        }
        // Without a plan, too.
        #expect(throws: SwiftDataError.backwardMigration) {
            try ModelContainer(for: Schema(versionedSchema: NotesV2.self), configurations: [try place.configuration()])
        }
        #expect(try place.contents() == before)
    }

    @Test(arguments: MigrationPlaceKind.allCases) func planMigratesTheStoreHoldingItsModelsAndLeavesTheOthersAlone(_ kind: MigrationPlaceKind) throws {
        let notes = MigrationPlace(kind), codes = MigrationPlace(kind)
        // Release 1: notes (with a memo, a model the plan does not name) in one store, codes in another.
        do {
            let container = try ModelContainer(
                for: Schema(NotesV1.models + [CodesWithMemo.Memo.self, CodesPlain.Code.self], version: NotesV1.versionIdentifier),
                configurations: [
                    try notes.configuration("notes", schema: Schema(NotesV1.models + [CodesWithMemo.Memo.self])),
                    try codes.configuration("codes", schema: Schema([CodesPlain.Code.self])),
                ])
            let context = ModelContext(container)
            context.insert(NotesV1.Note(title: "One", folder: NotesV1.Folder(name: "Inbox")))
            context.insert(NotesV1.Note(title: "Two", folder: NotesV1.Folder(name: "Inbox")))
            context.insert(CodesWithMemo.Memo(text: "kept"))
            context.insert(CodesPlain.Code(value: "A7", count: 3))
            try context.save()
        }
        let container = try ModelContainer(
            for: Schema(NotesV3.models + [CodesWithMemo.Memo.self, CodesPlain.Code.self], version: NotesV3.versionIdentifier),
            migrationPlan: NotesPlan.self,
            configurations: [
                try notes.configuration("notes", schema: Schema(NotesV3.models + [CodesWithMemo.Memo.self])),
                try codes.configuration("codes", schema: Schema([CodesPlain.Code.self])),
            ])
        let context = ModelContext(container)
        let folders = try context.fetch(FetchDescriptor<NotesV3.Folder>())
        #expect(folders.map(\.name) == ["Inbox"])
        #expect(folders.first?.notes.count == 2)
        #expect(try context.fetch(FetchDescriptor<CodesWithMemo.Memo>()).map(\.text) == ["kept"])
        #expect(try context.fetch(FetchDescriptor<CodesPlain.Code>()).map { "\($0.value) \($0.count)" } == ["A7 3"])
    }

    // MARK: Automatic lightweight migrations

    /// Adding a subclass is a lightweight stage: existing rows keep their class, and the new
    /// class's models are stored beside them; a later stage adds another subclass and an
    /// attribute of the first.
    @Test(arguments: MigrationPlaceKind.allCases) func addingSubclassesIsALightweightMigration(_ kind: MigrationPlaceKind) throws {
        let place = try store(kind, ExcursionsV1.models, version: ExcursionsV1.versionIdentifier) { context in
            context.insert(ExcursionsV1.Excursion(name: "Fjords", hours: 5))
            context.insert(ExcursionsV1.Excursion(name: "Glacier", hours: 7))
        }
        let v2 = try open(place, Schema(versionedSchema: ExcursionsV2.self), plan: ExcursionsPlan.self)
        #expect(v2.stages == ["1.0.0 → 2.0.0, lightweight"])
        let context = ModelContext(v2.container)
        let kept = try context.fetch(FetchDescriptor<ExcursionsV2.Excursion>(sortBy: [SortDescriptor(\.name)]))
        #expect(kept.map(\.name) == ["Fjords", "Glacier"] && kept.map(\.hours) == [5, 7])
        #expect(kept.allSatisfy { type(of: $0) == ExcursionsV2.Excursion.self })
        context.insert(ExcursionsV2.GuidedExcursion(name: "Museum", hours: 2, guide: "Ida"))
        try context.save()

        let v3 = try open(place, Schema(versionedSchema: ExcursionsV3.self), plan: ExcursionsPlan.self)
        #expect(v3.stages == ["2.0.0 → 3.0.0, lightweight"])
        let later = ModelContext(v3.container)
        let all = try later.fetch(FetchDescriptor<ExcursionsV3.Excursion>(sortBy: [SortDescriptor(\.name)]))
        #expect(all.map { String(describing: type(of: $0)) } == ["Excursion", "Excursion", "GuidedExcursion"])
        let guided = try #require(all.last as? ExcursionsV3.GuidedExcursion)
        #expect(guided.guide == "Ida" && guided.language == "en" && guided.hours == 2)
        later.insert(ExcursionsV3.SelfGuidedExcursion(name: "Walk", hours: 1, app: "Maps"))
        try later.save()

        let reopened = ModelContext(try open(place, Schema(versionedSchema: ExcursionsV3.self), plan: ExcursionsPlan.self).container)
        #expect(try reopened.fetch(FetchDescriptor<ExcursionsV3.SelfGuidedExcursion>()).map(\.app) == ["Maps"])
        #expect(try reopened.fetchCount(FetchDescriptor<ExcursionsV3.Excursion>()) == 4)
    }

    @Test(arguments: MigrationPlaceKind.allCases) func automaticMigrationRenamesAddsRemovesAndConverts(_ kind: MigrationPlaceKind) throws {
        let place = try store(kind, [ShelfA.Item.self, ShelfA.Retired.self]) { context in
            let shelf = ShelfA.Shelf(name: "Top")
            let red = ShelfA.Label(text: "red")
            let item = ShelfA.Item(name: "Lamp", note: nil, count: 3, rating: 5)
            item.shelf = shelf
            item.oldLabels = [red]
            let other = ShelfA.Item(name: "Vase", note: "fragile", count: 1)
            other.oldLabels = [red, ShelfA.Label(text: "blue")]
            context.insert(item)
            context.insert(other)
        }
        // Retired holds no rows, so leaving it out drops it (one with rows would be refused).
        let (container, stages) = try open(place, Schema([ShelfB.Item.self, ShelfB.Arrival.self]))
        #expect(stages == ["1.0.0 → 1.0.0, automatic lightweight"])
        let context = ModelContext(container)
        let items = try context.fetch(FetchDescriptor<ShelfB.Item>(sortBy: [SortDescriptor(\.title)]))
        #expect(items.map(\.title) == ["Lamp", "Vase"])                      // @Attribute(originalName:)
        #expect(items.map(\.note) == ["none", "fragile"])                    // optional → non-optional with a default
        #expect(items.map(\.count) == [3.0, 1.0])                            // Int → Double
        #expect(items.map(\.added) == [nil, nil])                            // new optional
        #expect(items.map(\.addedWithDefault) == [7, 7])                     // new with a default
        #expect(items.map(\.rating) == [5, 3])                               // non-optional → optional
        #expect(items.allSatisfy { $0.arrival == nil })                      // relationship added
        #expect(items.map { $0.shelf?.name } == ["Top", nil])
        #expect(items.map { $0.labels.map(\.text).sorted() } == [["red"], ["blue", "red"]])   // @Relationship(originalName:)
        let red = try #require(try context.fetch(FetchDescriptor<ShelfB.Label>(predicate: #Predicate { $0.text == "red" })).first)
        #expect(red.items.map(\.title).sorted() == ["Lamp", "Vase"])
        #expect(try context.fetchCount(FetchDescriptor<ShelfB.Arrival>()) == 0)   // entity added
        context.insert(ShelfB.Arrival(value: 2))
        try context.save()

        // The delete rule changed to cascade: deleting the shelf now deletes its items.
        let shelf = try #require(try context.fetch(FetchDescriptor<ShelfB.Shelf>()).first)
        context.delete(shelf)
        try context.save()
        let fresh = try ModelContainer(for: ShelfB.Item.self, ShelfB.Arrival.self, configurations: try place.configuration())
        #expect(try ModelContext(fresh).fetch(FetchDescriptor<ShelfB.Item>()).map(\.title) == ["Vase"])
        #expect(try ModelContext(fresh).fetchCount(FetchDescriptor<ShelfB.Arrival>()) == 1)
    }

    @Test(arguments: MigrationPlaceKind.allCases) func rebuiltTableKeepsValuesOfPropertiesThatHaveDefaults(_ kind: MigrationPlaceKind) throws {
        let place = try store(kind, [ShelfA.Item.self, ShelfA.Retired.self]) { context in
            context.insert(ShelfA.Item(name: "Lamp"))
            context.insert(ShelfA.Item(name: "Vase"))
        }
        let (b, _) = try open(place, Schema([ShelfB.Item.self, ShelfB.Arrival.self]))
        let context = ModelContext(b)
        let lamp = try #require(try context.fetch(FetchDescriptor<ShelfB.Item>(predicate: #Predicate { $0.title == "Lamp" })).first)
        lamp.added = "set"
        lamp.addedWithDefault = 9
        try context.save()
        _ = b
        // `added` becomes non-optional with a default; `addedWithDefault` is copied as it is.
        let (c, stages) = try open(place, Schema([ShelfC.Item.self, ShelfC.Arrival.self]))
        #expect(stages.count == 1)
        let items = try ModelContext(c).fetch(FetchDescriptor<ShelfC.Item>(sortBy: [SortDescriptor(\.title)]))
        #expect(items.map(\.added) == ["set", "unset"])
        #expect(items.map(\.addedWithDefault) == [9, 7])
        #expect(items.map(\.note) == ["none", "none"])
    }

    @Test(arguments: MigrationPlaceKind.allCases) func openingWithoutAnEntityThatHoldsRowsIsRefusedUnchanged(_ kind: MigrationPlaceKind) throws {
        // A second app or tool opening the same store with another set of models.
        let place = try store(kind, [CodesWithMemo.Code.self, CodesWithMemo.Memo.self]) { context in
            context.insert(CodesWithMemo.Code(value: "A7", memo: "note"))
            context.insert(CodesWithMemo.Memo(text: "kept"))
        }
        let before = try place.contents()
        do {
            _ = try ModelContainer(for: Schema([CodesPlain.Code.self, PetsOneOwner.Pet.self]), configurations: [try place.configuration()])
            Issue.record("opening with another model set deleted an entity's rows")
        } catch let error as SwiftDataError {
            #expect(error == .schemaMismatch)
            #expect(error.message.contains("Memo (1 row)"))
            #expect(error.message.contains("SchemaMigrationPlan"))
        }
        #expect(try place.contents() == before)
        let (all, _) = try open(place, Schema([CodesWithMemo.Code.self, CodesWithMemo.Memo.self]))
        #expect(try ModelContext(all).fetch(FetchDescriptor<CodesWithMemo.Memo>()).map(\.text) == ["kept"])
    }

    @Test(arguments: MigrationPlaceKind.allCases) func aPlanRemovesEntitiesAndAttributesWithTheirData(_ kind: MigrationPlaceKind) throws {
        let place = try store(kind, CodesMemoV1.models, version: CodesMemoV1.versionIdentifier) { context in
            context.insert(CodesWithMemo.Code(value: "A7", memo: "note"))
            context.insert(CodesWithMemo.Memo(text: "gone"))
        }
        let (plain, stages) = try open(place, Schema(versionedSchema: CodesMemoV2.self), plan: CodesMemoPlan.self)
        #expect(stages == ["1.0.0 → 2.0.0, lightweight, the plan has no stage for it"])
        #expect(try ModelContext(plain).fetch(FetchDescriptor<CodesPlain.Code>()).map(\.value) == ["A7"])
        _ = plain
        // Adding them back (a version later) gives empty values, not the old ones.
        let (again, _) = try open(place, Schema([CodesWithMemo.Code.self, CodesWithMemo.Memo.self], version: Schema.Version(3, 0, 0)))
        let context = ModelContext(again)
        #expect(try context.fetch(FetchDescriptor<CodesWithMemo.Code>()).map(\.memo) == [nil])
        #expect(try context.fetchCount(FetchDescriptor<CodesWithMemo.Memo>()) == 0)
    }

    /// The plan's stages say which steps exist; the order its schemas are listed in does not
    /// decide direction.
    @Test(arguments: MigrationPlaceKind.allCases) func aDowngradeStageRunsWithTheSchemasListedOldestFirst(_ kind: MigrationPlaceKind) throws {
        let place = try store(kind, CodesMemoV2.models, version: CodesMemoV2.versionIdentifier) { context in
            context.insert(CodesPlain.Code(value: "B2"))
        }
        let (older, stages) = try open(place, Schema(versionedSchema: CodesMemoV1.self), plan: CodesMemoDowngradePlan.self)
        #expect(stages.count == 1)
        #expect(try ModelContext(older).fetch(FetchDescriptor<CodesWithMemo.Code>()).map { "\($0.value) \($0.memo ?? "-")" } == ["B2 restored"])
    }

    @Test(arguments: MigrationPlaceKind.allCases) func anEmptyEntityLeftOutIsDroppedWithoutAPlan(_ kind: MigrationPlaceKind) throws {
        let place = try store(kind, [CodesWithMemo.Code.self, CodesWithMemo.Memo.self]) { context in
            context.insert(CodesWithMemo.Code(value: "A7", memo: "note"))
        }
        let (plain, stages) = try open(place, Schema([CodesPlain.Code.self]))
        #expect(stages.count == 1)
        #expect(try ModelContext(plain).fetch(FetchDescriptor<CodesPlain.Code>()).map(\.value) == ["A7"])
    }

    @Test(arguments: MigrationPlaceKind.allCases) func toOneBecomesToManyAndBackWhereTheDataAllows(_ kind: MigrationPlaceKind) throws {
        let place = try store(kind, [PetsOneOwner.Pet.self]) { context in
            let ann = PetsOneOwner.Owner(name: "Ann")
            context.insert(PetsOneOwner.Pet(name: "Rex", owner: ann))
            context.insert(PetsOneOwner.Pet(name: "Tom", owner: ann))
            context.insert(PetsOneOwner.Pet(name: "Stray"))
        }
        // One owner → many owners: each link moves from the key column to the pairs.
        let (many, _) = try open(place, Schema([PetsManyOwners.Pet.self]))
        let context = ModelContext(many)
        let pets = try context.fetch(FetchDescriptor<PetsManyOwners.Pet>(sortBy: [SortDescriptor(\.name)]))
        #expect(pets.map { $0.owners.map(\.name) } == [["Ann"], [], ["Ann"]])
        #expect(try context.fetch(FetchDescriptor<PetsManyOwners.Owner>()).first?.pets.count == 2)

        // Back to one owner works while each pet has at most one.
        _ = many
        let (one, _) = try open(place, Schema([PetsBackToOne.Pet.self]))
        let back = try ModelContext(one).fetch(FetchDescriptor<PetsBackToOne.Pet>(sortBy: [SortDescriptor(\.name)]))
        #expect(back.map { $0.owner?.name } == ["Ann", nil, "Ann"])
        #expect(try ModelContext(one).fetch(FetchDescriptor<PetsBackToOne.Owner>()).first?.pets.count == 2)
    }

    @Test(arguments: MigrationPlaceKind.allCases) func aSecondListNamingTheSameInverseStartsEmpty(_ kind: MigrationPlaceKind) throws {
        let place = try store(kind, [YardOneList.Yard.self]) { context in
            let front = YardOneList.Yard(name: "front")
            context.insert(front)
            for name in ["a", "b"] { context.insert(YardOneList.Plant(name: name, yard: front)) }
            context.insert(YardOneList.Plant(name: "loose"))
        }
        // The first list's links move from the plants' column to its own pairs; the new list,
        // which the column cannot tell apart, starts with none; the to-ones stay.
        let (two, _) = try open(place, Schema([YardTwoLists.Yard.self]))
        let context = ModelContext(two)
        let yard = try #require(try context.fetch(FetchDescriptor<YardTwoLists.Yard>()).first)
        #expect(yard.leadingPlants.map(\.name).sorted() == ["a", "b"])
        #expect(yard.trailingPlants.isEmpty)
        let plants = try context.fetch(FetchDescriptor<YardTwoLists.Plant>(sortBy: [SortDescriptor(\.name)]))
        #expect(plants.map { $0.yard?.name } == ["front", "front", nil])
    }

    @Test(arguments: MigrationPlaceKind.allCases) func toManyWithSeveralLinksDoesNotBecomeToOne(_ kind: MigrationPlaceKind) throws {
        let place = try store(kind, [PetsManyOwners.Pet.self]) { context in
            let rex = PetsManyOwners.Pet(name: "Rex")
            rex.owners = [PetsManyOwners.Owner(name: "Ann"), PetsManyOwners.Owner(name: "Bob")]
            context.insert(rex)
        }
        let before = try place.contents()
        do {
            _ = try ModelContainer(for: PetsBackToOne.Pet.self, configurations: try place.configuration())
            Issue.record("a pet with two owners became a pet with one")
        } catch let error as SwiftDataError {
            #expect(error == .schemaMismatch)
            #expect(error.message.contains("Pet.owner"))
            #expect(error.message.contains("several"))
        }
        #expect(try place.contents() == before)
        let (container, _) = try open(place, Schema([PetsManyOwners.Pet.self]))
        #expect(try ModelContext(container).fetch(FetchDescriptor<PetsManyOwners.Pet>()).first?.owners.count == 2)
    }

    @Test(arguments: MigrationPlaceKind.allCases) func uniqueConstraintAddedOverDuplicatesNamesThemAndChangesNothing(_ kind: MigrationPlaceKind) throws {
        let place = try store(kind, [CodesPlain.Code.self]) { context in
            context.insert(CodesPlain.Code(value: "A7", count: 1))
            context.insert(CodesPlain.Code(value: "B2"))
            context.insert(CodesPlain.Code(value: "A7", count: 2))
        }
        let before = try place.contents()
        do {
            _ = try ModelContainer(for: CodesUnique.Code.self, configurations: try place.configuration())
            Issue.record("a unique constraint over duplicates was added")
        } catch let error as SwiftDataError {
            #expect(error == .constraintViolation)
            #expect(error.message.contains("Code.value"))
            #expect(error.message.contains("A7"))
        }
        #expect(try place.contents() == before)
        let (container, _) = try open(place, Schema([CodesPlain.Code.self]))
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<CodesPlain.Code>()) == 3)
    }

    @Test(arguments: MigrationPlaceKind.allCases) func uniqueConstraintAddedAndRemoved(_ kind: MigrationPlaceKind) throws {
        let place = try store(kind, [CodesPlain.Code.self]) { context in
            context.insert(CodesPlain.Code(value: "A7", count: 1))
        }
        let (unique, _) = try open(place, Schema([CodesUnique.Code.self]))
        let context = ModelContext(unique)
        context.insert(CodesUnique.Code(value: "A7", count: 9))   // an upsert now
        try context.save()
        let codes = try ModelContext(unique).fetch(FetchDescriptor<CodesUnique.Code>())
        #expect(codes.map(\.count) == [9])
        _ = unique

        let (plain, _) = try open(place, Schema([CodesPlain.Code.self]))
        let again = ModelContext(plain)
        again.insert(CodesPlain.Code(value: "A7", count: 10))      // a second row now
        try again.save()
        #expect(try ModelContext(plain).fetch(FetchDescriptor<CodesPlain.Code>(sortBy: [SortDescriptor(\.count)])).map(\.count) == [9, 10])
    }

    @Test(arguments: MigrationPlaceKind.allCases) func typeChangeNeedsACustomStage(_ kind: MigrationPlaceKind) throws {
        let place = try store(kind, [CodesPlain.Code.self]) { context in
            context.insert(CodesPlain.Code(value: "12"))
        }
        let before = try place.contents()
        do {
            _ = try ModelContainer(for: CodesRetyped.Code.self, configurations: try place.configuration())
            Issue.record("String became Int without a custom stage")
        } catch let error as SwiftDataError {
            #expect(error == .schemaMismatch)
            #expect(error.message.contains("Code.value"))
            #expect(error.message.contains("MigrationStage.custom"))
        }
        #expect(try place.contents() == before)
    }

    @Test(arguments: MigrationPlaceKind.allCases) func newRequiredValueWithoutDefaultIsRefusedForExistingRows(_ kind: MigrationPlaceKind) throws {
        let place = try store(kind, [CodesPlain.Code.self]) { context in
            context.insert(CodesPlain.Code(value: "12"))
        }
        let before = try place.contents()
        do {
            _ = try ModelContainer(for: CodesWithRequiredField.Code.self, configurations: try place.configuration())
            Issue.record("a non-optional value without a default was invented")
        } catch let error as SwiftDataError {
            #expect(error == .schemaMismatch)
            #expect(error.message.contains("Code.owner"))
            #expect(error.message.contains("default"))
        }
        #expect(try place.contents() == before)
        // An empty store takes the same change.
        let empty = try store(kind, [CodesPlain.Code.self]) { _ in }
        let (container, _) = try open(empty, Schema([CodesWithRequiredField.Code.self]))
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<CodesWithRequiredField.Code>()) == 0)
    }

    /// A process migrating 50,000 rows is killed at random moments: each time the file is the
    /// first version whole (and opens with it, unmigrated) or the second whole — never in between.
    @Test func killedMigrationLeavesEitherVersionWhole() throws {
        let rows = 50_000
        let source = try store(.file, [ReadingsV1.Reading.self], version: ReadingsV1.version) { context in
            for sensor in 0..<rows { context.insert(ReadingsV1.Reading(sensor: sensor, value: Double(sensor) / 2)) }
        }
        var interrupted = 0
        for round in 0..<Self.kills {
            let url = TestStore.temporaryURL()
            defer { TestStore.removeFiles(at: url) }
            for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: source.url.path + suffix) {
                try FileManager.default.copyItem(atPath: source.url.path + suffix, toPath: url.path + suffix)
            }
            let (process, output, _) = try HelperProcess.start(["migrate", url.path])
            var text = ""
            while !text.contains("progress") {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
            }
            // Early in the copy on even rounds; anywhere, or after the end, on odd ones.
            usleep(UInt32.random(in: 0...(round.isMultiple(of: 2) ? 2_000 : 400_000)))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            text += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(text.contains("progress"), "the migration did not start: \(text.suffix(300))")

            let connection = try SQLiteConnection(path: url.path, readOnly: true, create: false)
            let integrity = try connection.prepare("PRAGMA integrity_check")
            #expect(try integrity.step() && integrity.value(at: 0) == .text("ok"))
            integrity.reset()
            let version = try SQLStore.readMetadata(connection, dialect: SQLiteDialect())["version"]
            if version == ReadingsV1.version.description {
                interrupted += 1
                let events = Locked<Int>(0)
                let container = try MigrationProgress.observe({ _ in events.withLock { $0 += 1 } }, during: {
                    try ModelContainer(for: Schema([ReadingsV1.Reading.self], version: ReadingsV1.version), configurations: [ModelConfiguration(url: url)])
                })
                #expect(events.withLock { $0 } == 0)
                let readings = try ModelContext(container).fetch(FetchDescriptor<ReadingsV1.Reading>())
                #expect(readings.count == rows)
                #expect(readings.reduce(0) { $0 + $1.value } == Double(rows * (rows - 1)) / 4)
            } else {
                #expect(version == ReadingsV2.version.description)
                let container = try ModelContainer(for: Schema([ReadingsV2.Reading.self], version: ReadingsV2.version), configurations: [ModelConfiguration(url: url)])
                let readings = try ModelContext(container).fetch(FetchDescriptor<ReadingsV2.Reading>())
                #expect(readings.count == rows)
                #expect(readings.reduce(0) { $0 + $1.measurement } == Double(rows * (rows - 1)) / 4)
                #expect(readings.allSatisfy { $0.unit == "°C" })
            }
        }
        #expect(interrupted > 0, "no kill landed before the migration committed")
    }

    @Test func inMemoryStoreOpensAtTheCurrentVersionWithAPlan() throws {
        let container = try ModelContainer(
            for: Schema(versionedSchema: NotesV3.self), migrationPlan: NotesPlan.self,
            configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        let context = ModelContext(container)
        context.insert(NotesV3.Note(heading: "New"))
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<NotesV3.Note>()) == 1)
    }
}
