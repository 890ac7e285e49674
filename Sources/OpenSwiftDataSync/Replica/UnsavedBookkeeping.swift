import Foundation
import OpenSwiftData

/// The bookkeeping a capture made and has not saved yet, by identity. A capture looks
/// bookkeeping up for every row it records (members, aliases); finding what it made here keeps
/// each lookup from scanning every unsaved model of the context, which a capture of many rows
/// holds many of.
final class UnsavedBookkeeping {
    private(set) var objects: [UUID: SyncedObject] = [:]

    /// Starts from the bookkeeping `context` holds unsaved (found in one pass).
    init(_ context: ModelContext) {
        for case let object as SyncedObject in context.insertedModelsArray { objects[object.globalID] = object }
    }

    /// `object`, just inserted into the capture's context.
    func add(_ object: SyncedObject) {
        objects[object.globalID] = object
    }
}
