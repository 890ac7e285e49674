import Foundation
import Testing
import StoreTestSupport
import TestModels
@testable import OpenSwiftData

/// A context that read rows another context deleted since: saving a reference to such a row, or a
/// change to it, throws and leaves the store as it was.
@Suite struct StaleContextTests {
    private func setUp(_ kind: StoreKind) throws -> (TestStore, stale: ModelContext, folder: CrashFolder, label: CrashLabel) {
        let store = try TestStore(kind, crashModels)
        let setup = store.context()
        let folder = CrashFolder(number: 1, documentCount: 1)
        let document = CrashDocument(title: "kept", labelCount: 0)
        setup.insert(folder)
        document.folder = folder
        setup.insert(CrashLabel(name: "urgent"))
        try setup.save()
        // The stale context reads everything before another context deletes it.
        let stale = store.context()
        let staleFolder = try #require(try stale.fetch(FetchDescriptor<CrashFolder>()).first)
        let staleLabel = try #require(try stale.fetch(FetchDescriptor<CrashLabel>()).first)
        let other = store.context()
        try other.delete(model: CrashLabel.self)
        for folder in try other.fetch(FetchDescriptor<CrashFolder>()) { other.delete(folder) }  // cascades to its document
        try other.save()
        return (store, stale, staleFolder, staleLabel)
    }

    @Test(arguments: StoreKind.allCases)
    func relatingANewModelToADeletedRowThrows(_ kind: StoreKind) throws {
        let (store, stale, folder, _) = try setUp(kind)
        let document = CrashDocument(title: "orphan", labelCount: 0)
        stale.insert(document)
        document.folder = folder
        do {
            try stale.save()
            Issue.record("a reference to a deleted row was saved")
        } catch let error as SwiftDataError {
            #expect(error == .modelNotFound)
            #expect(error.message.contains("CrashDocument.folder"))
            #expect(error.message.contains("deleted by another context"))
        }
        let fresh = store.context()
        #expect(try fresh.fetchCount(FetchDescriptor<CrashDocument>()) == 0)
        #expect(try fresh.fetchCount(FetchDescriptor<CrashFolder>()) == 0)
        #expect(stale.hasChanges)
    }

    @Test(arguments: StoreKind.allCases)
    func addingADeletedRowToAManyToManyThrows(_ kind: StoreKind) throws {
        let (store, stale, _, label) = try setUp(kind)
        let document = CrashDocument(title: "new", labelCount: 1)
        stale.insert(document)
        document.labels = [label]
        #expect(throws: SwiftDataError.modelNotFound) { try stale.save() }
        #expect(try store.context().fetchCount(FetchDescriptor<CrashDocument>()) == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func changingADeletedRowThrows(_ kind: StoreKind) throws {
        let (store, stale, folder, _) = try setUp(kind)
        folder.number = 2
        stale.insert(CrashRow(batch: 1, position: 1))
        #expect(throws: SwiftDataError.modelNotFound) { try stale.save() }
        // Nothing of the save was written, not even the unrelated insert.
        #expect(try store.context().fetchCount(FetchDescriptor<CrashRow>()) == 0)
        #expect(try store.context().fetchCount(FetchDescriptor<CrashFolder>()) == 0)
    }
}
