import Foundation
import Testing
import StoreTestSupport
import TestModels
@testable import OpenSwiftData

/// `update(model:where:set:to:)`, on every store: every stored model the predicate selects gets
/// the value (read back in a fresh container), the count is theirs, registered models follow
/// without being marked changed, history records it, and what cannot be done changes nothing.
@Suite struct BatchUpdateTests {
    @Test(arguments: StoreKind.allCases)
    func setsTheAttributeOfEveryMatchingModel(_ kind: StoreKind) throws {
        let (store, context) = try AggregateTests.seeded(kind)
        let before = try context.fetch(FetchDescriptor<Reading>())
        let matching = Set(before.filter { $0.count > 0 && $0.sensor?.name != "b" }.map(\.persistentModelID))
        let labels = Dictionary(uniqueKeysWithValues: before.map { ($0.persistentModelID, $0.label) })
        let grades = Dictionary(uniqueKeysWithValues: before.map { ($0.persistentModelID, $0.grade) })

        let changed = try context.update(model: Reading.self, where: #Predicate { $0.count > 0 && $0.sensor?.name != "b" }, set: \.label, to: "updated")
        #expect(changed == matching.count)
        #expect(matching.count > 10)
        // Registered models show the value, and nothing is left to save.
        for model in before {
            #expect(model.label == (matching.contains(model.persistentModelID) ? "updated" : labels[model.persistentModelID]))
        }
        #expect(!context.hasChanges)

        let fresh = ModelContext(try store.reopen(AggregateModels.types))
        for model in try fresh.fetch(FetchDescriptor<Reading>()) {
            #expect(model.label == (matching.contains(model.persistentModelID) ? "updated" : labels[model.persistentModelID]))
        }
        // Optional values, to nil and back; nothing matching changes nothing.
        #expect(try fresh.update(model: Reading.self, set: \.weight, to: nil) == before.count)
        #expect(try fresh.fetchCount(FetchDescriptor(predicate: #Predicate<Reading> { $0.weight != nil })) == 0)
        #expect(try fresh.update(model: Reading.self, where: #Predicate { $0.count > 10_000 }, set: \.grade, to: .high) == 0)
        #expect(try fresh.update(model: Reading.self, where: #Predicate { $0.count < 0 }, set: \.grade, to: .high) == before.filter { $0.count < 0 }.count)
        let again = ModelContext(try store.reopen(AggregateModels.types))
        for model in try again.fetch(FetchDescriptor<Reading>()) {
            #expect(model.grade == (model.count < 0 ? .high : grades[model.persistentModelID]))
        }
        withExtendedLifetime(store) {}
    }

    /// A registered model with an unsaved edit of the attribute keeps its edit (written at the
    /// next save); its other unsaved changes are not saved by the update. Another context sees
    /// the value on its next fetch.
    @Test(arguments: StoreKind.allCases)
    func unsavedEditsAreKeptAndOtherContextsSeeTheValueOnTheirNextFetch(_ kind: StoreKind) throws {
        let store = try TestStore(kind, AggregateModels.types)
        let context = store.context()
        let edited = Reading(count: 1, label: "one"), other = Reading(count: 2, label: "two")
        [edited, other].forEach(context.insert)
        try context.save()
        let elsewhere = ModelContext(store.container)
        let seen = try elsewhere.fetch(FetchDescriptor<Reading>(sortBy: [SortDescriptor(\.count)]))
        #expect(seen.map(\.label) == ["one", "two"])

        edited.label = "mine"
        edited.count = 10
        #expect(try context.update(model: Reading.self, set: \.label, to: "all") == 2)
        #expect(edited.label == "mine")
        #expect(other.label == "all")
        #expect(context.hasChanges)
        // Not saved by the update: the count edit is still only here.
        #expect(try ModelContext(try store.reopen(AggregateModels.types)).fetch(FetchDescriptor<Reading>(sortBy: [SortDescriptor(\.count)])).map(\.count) == [1, 2])

        #expect(try elsewhere.fetch(FetchDescriptor<Reading>(sortBy: [SortDescriptor(\.count)])).map(\.label) == ["all", "all"])
        #expect(seen.map(\.label) == ["all", "all"])
        try context.save()
        let fresh = ModelContext(try store.reopen(AggregateModels.types))
        #expect(try fresh.fetch(FetchDescriptor<Reading>(sortBy: [SortDescriptor(\.count)])).map(\.label) == ["all", "mine"])
    }

    /// A value that breaks a unique constraint throws and changes nothing; relationships and
    /// computed properties are refused by name.
    @Test(arguments: StoreKind.allCases)
    func whatCannotBeDoneChangesNothing(_ kind: StoreKind) throws {
        let store = try TestStore(kind, AggregateModels.types)
        let context = store.context()
        ["a", "b", "c"].enumerated().forEach { context.insert(Sensor(name: $0.element, offset: $0.offset)) }
        try context.save()
        #expect(throws: SwiftDataError.constraintViolation) {
            try context.update(model: Sensor.self, where: #Predicate { $0.offset > 0 }, set: \.name, to: "same")
        }
        // One row may take a value no other row holds.
        #expect(try context.update(model: Sensor.self, where: #Predicate { $0.offset == 2 }, set: \.name, to: "z") == 1)
        let fresh = ModelContext(try store.reopen(AggregateModels.types))
        #expect(try fresh.fetch(FetchDescriptor<Sensor>(sortBy: [SortDescriptor(\.offset)])).map(\.name) == ["a", "b", "z"])

        do {
            try context.update(model: Reading.self, set: \.sensor, to: nil)
            Issue.record("a relationship was set by a batch update")
        } catch let error as SwiftDataError {
            #expect(error.code == .unsupportedKeyPath)
            #expect(error.message.contains("Reading.sensor"))
        }
    }

    /// History records an update of the attribute for every row changed, under the context's
    /// author.
    @Test(arguments: StoreKind.keepingHistory)
    func historyRecordsAnUpdateOfEveryRow(_ kind: StoreKind) throws {
        let store = try TestStore(kind, AggregateModels.types)
        let context = store.context()
        let readings = (1...5).map { Reading(count: $0) }
        readings.forEach(context.insert)
        try context.save()
        context.author = "batch"
        #expect(try context.update(model: Reading.self, where: #Predicate { $0.count >= 3 }, set: \.small, to: 7) == 3)
        let fresh = ModelContext(try store.reopen(AggregateModels.types))
        let history = try fresh.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        let last = try #require(history.last)
        #expect(last.author == "batch")
        var updated: Set<PersistentIdentifier> = []
        for change in last.changes {
            guard case .update(let update as any HistoryUpdate<Reading>) = change else {
                Issue.record("expected only updates, found \(change)")
                continue
            }
            #expect(update.updatedAttributes.map { $0 as PartialKeyPath<Reading> } == [\Reading.small])
            updated.insert(update.changedPersistentIdentifier)
        }
        #expect(updated == Set(readings.filter { $0.count >= 3 }.map(\.persistentModelID)))
    }

    /// A class hierarchy: models of subclasses that match are updated too.
    @Test(arguments: StoreKind.allCases)
    func subclassesAreUpdated(_ kind: StoreKind) throws {
        let store = try TestStore(kind, InheritanceModels.types)
        let context = store.context()
        context.insert(Journey(name: "walk"))
        context.insert(BusinessJourney(name: "pitch", purpose: "sales"))
        context.insert(PersonalJourney(name: "visit", reason: nil))
        try context.save()
        #expect(try context.update(model: Journey.self, where: #Predicate { $0.name != "visit" }, set: \.name, to: "renamed") == 2)
        #expect(try context.update(model: BusinessJourney.self, set: \.budget, to: 9) == 1)
        let fresh = ModelContext(try store.reopen(InheritanceModels.types))
        #expect(try fresh.fetch(FetchDescriptor<Journey>()).map(\.name).sorted() == ["renamed", "renamed", "visit"])
        #expect(try fresh.fetch(FetchDescriptor<BusinessJourney>()).map(\.budget) == [9])
    }
}
