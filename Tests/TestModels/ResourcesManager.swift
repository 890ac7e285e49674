import Foundation
import OpenSwiftData

/// The models that wrote the SwiftData store in `../shared/fixtures/swiftdata-apple-store/`, as
/// its README describes them, declared as an app would: the Apple-file tests and the fuzzer's
/// Core Data inputs open that file with them.
public enum ResourcesManager {
    @Model public final class Item {
        @Attribute(.unique) public var name: String
        public var craftingRecipe: CraftingRecipe?

        public init(name: String) {
            self.name = name
        }
    }

    @Model public final class Component {
        public var id: UUID
        public var count: Int = 1
        public var item: Item?
        public var craftingRecipe: CraftingRecipe?

        public init(id: UUID = UUID(), count: Int = 1) {
            self.id = id
            self.count = count
        }
    }

    @Model public final class CraftingRecipe {
        @Relationship(inverse: \Component.craftingRecipe) public var requiredComponents: [Component] = []
        public var producedItemCount: String = "1"
        public var producedItem: Item?

        public init(producedItemCount: String = "1") {
            self.producedItemCount = producedItemCount
        }
    }

    public static let types: [any PersistentModel.Type] = [Item.self, Component.self, CraftingRecipe.self]

    /// The fixture, beside the project as CI places it; `nil` when it is not there.
    public static let fixture: URL? = {
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("shared/fixtures/swiftdata-apple-store/default.store")
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }()

    /// A private copy of the fixture in a folder of its own (removed by the caller).
    public static func copyOfFixture() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("openswiftdata-apple-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let copy = folder.appendingPathComponent("default.store")
        guard let fixture else { throw CocoaError(.fileNoSuchFile) }
        try FileManager.default.copyItem(at: fixture, to: copy)
        return copy
    }
}
