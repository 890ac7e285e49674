import Foundation
import OpenSwiftData

// Models the crash campaign writes from a child process that is killed at random moments: each
// save's shape is recorded in the rows themselves, so a checker can tell a whole save from half a one.

/// A folder whose documents are deleted with it (cascade); `documentCount` is how many it was saved with.
@Model
public final class CrashFolder {
    public var number: Int
    public var documentCount: Int
    @Relationship(deleteRule: .cascade, inverse: \CrashDocument.folder) public var documents: [CrashDocument] = []

    public init(number: Int, documentCount: Int) {
        self.number = number
        self.documentCount = documentCount
    }
}

/// A document in a folder, with labels (many-to-many); `labelCount` is how many it was saved with.
@Model
public final class CrashDocument {
    public var title: String
    public var labelCount: Int
    public var folder: CrashFolder?
    @Relationship(inverse: \CrashLabel.documents) public var labels: [CrashLabel] = []

    public init(title: String, labelCount: Int) {
        self.title = title
        self.labelCount = labelCount
    }
}

/// A label shared by many documents.
@Model
public final class CrashLabel {
    public var name: String
    public var documents: [CrashDocument] = []

    public init(name: String) { self.name = name }
}

/// A row of a 1,000-row batch save; `batch` names the save.
@Model
public final class CrashRow {
    public var batch: Int
    public var position: Int

    public init(batch: Int, position: Int) {
        self.batch = batch
        self.position = position
    }
}

/// The models of the crash campaign, in one schema.
public let crashModels: [any PersistentModel.Type] = [CrashFolder.self, CrashDocument.self, CrashLabel.self, CrashRow.self]
