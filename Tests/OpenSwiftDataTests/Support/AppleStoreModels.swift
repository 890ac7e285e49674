import Foundation
import OpenSwiftData
import Testing

/// The models that wrote the SwiftData store in `../shared/fixtures/swiftdata-apple-store/`, as
/// its README describes them, declared as an app would.
enum ResourcesManager {
    @Model final class Item {
        @Attribute(.unique) var name: String
        var craftingRecipe: CraftingRecipe?

        init(name: String) {
            self.name = name
        }
    }

    @Model final class Component {
        var id: UUID
        var count: Int = 1
        var item: Item?
        var craftingRecipe: CraftingRecipe?

        init(id: UUID = UUID(), count: Int = 1) {
            self.id = id
            self.count = count
        }
    }

    @Model final class CraftingRecipe {
        @Relationship(inverse: \Component.craftingRecipe) var requiredComponents: [Component] = []
        var producedItemCount: String = "1"
        var producedItem: Item?

        init(producedItemCount: String = "1") {
            self.producedItemCount = producedItemCount
        }
    }

    static let types: [any PersistentModel.Type] = [Item.self, Component.self, CraftingRecipe.self]

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

    /// The fixture, beside the project as CI places it; `nil` when it is not there.
    static let fixture: URL? = {
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("shared/fixtures/swiftdata-apple-store/default.store")
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }()

    static let skipReason: Comment = "the SwiftData store fixture is not at ../shared/fixtures/swiftdata-apple-store/default.store beside the project; place the shared folder there (CI does) to run these tests"

    /// A private copy of the fixture in a folder of its own (removed by the caller).
    static func copyOfFixture() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("openswiftdata-apple-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let copy = folder.appendingPathComponent("default.store")
        guard let fixture else { throw CocoaError(.fileNoSuchFile) }
        try FileManager.default.copyItem(at: fixture, to: copy)
        return copy
    }
}
