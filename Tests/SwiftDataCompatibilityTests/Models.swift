// Model code as a SwiftData app writes it: `import SwiftData` (the compatibility module off
// Apple platforms), module-qualified names, Swift 6 language mode.
import Foundation
#if canImport(SwiftData)
import SwiftData
#endif

@Model
final class Library {
    #Unique<Library>([\.code])
    var code: String
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Book.library)
    var books: [Book] = []

    init(code: String, name: String) {
        self.code = code
        self.name = name
    }
}

@Model
final class Book {
    #Index<Book>(.binary([\.title]), .rtree([\.latitude, \.longitude]))
    var title: String
    var subtitle: String?
    var latitude: Double
    var longitude: Double
    @Attribute(.transformable(by: ColorTransformer.self)) var cover: Color
    var library: Library?

    init(title: String, subtitle: String? = nil, latitude: Double = 0, longitude: Double = 0, cover: Color = Color(hex: 0)) {
        self.title = title
        self.subtitle = subtitle
        self.latitude = latitude
        self.longitude = longitude
        self.cover = cover
    }
}

@Model
final class Shelf {
    #Index<Shelf>([.binary([\.label])], [.rtree([\.x, \.y])])
    var label: String
    var x: Double
    var y: Double

    init(label: String, x: Double, y: Double) {
        self.label = label
        self.x = x
        self.y = y
    }
}

/// Someone else's `Codable` type, stored whole with `@Attribute(.codable)`.
struct ReadingState: Codable, Equatable {
    var bookTitle: String
    var page: Int
}

@Model
final class Reader {
    var name: String
    @Attribute(.codable) var reading: ReadingState

    init(name: String, reading: ReadingState) {
        self.name = name
        self.reading = reading
    }
}

/// A value type that is not `Codable`: stored through its transformer, as on Apple platforms.
final class Color: Equatable, @unchecked Sendable {
    let hex: UInt32
    init(hex: UInt32) { self.hex = hex }
    static func == (lhs: Color, rhs: Color) -> Bool { lhs.hex == rhs.hex }
}

final class ColorTransformer: ValueTransformer {
    override class func transformedValueClass() -> AnyClass { NSData.self }
    override class func allowsReverseTransformation() -> Bool { true }
    override func transformedValue(_ value: Any?) -> Any? {
        guard let color = value as? Color else { return nil }
        return withUnsafeBytes(of: color.hex.bigEndian) { Data($0) }
    }
    override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let data = value as? Data, data.count == 4 else { return nil }
        return Color(hex: data.reduce(0) { $0 << 8 | UInt32($1) })
    }
}

@ModelActor
actor BookReader {
    /// Takes a descriptor from another isolation domain: `FetchDescriptor` is `Sendable`.
    func titles(_ descriptor: FetchDescriptor<Book>) throws -> [String] {
        try modelContext.fetch(descriptor).map(\.title)
    }

    /// Identifiers cross actors; models do not.
    func identifiers(_ descriptor: FetchDescriptor<Book>) throws -> [PersistentIdentifier] {
        try modelContext.fetchIdentifiers(descriptor)
    }
}

/// The models as one version, and a plan listing it, as apps declare them before their first change.
enum BooksSchemaV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Library.self, Book.self, Shelf.self] }
}

enum BooksPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [BooksSchemaV1.self] }
    static var stages: [MigrationStage] { [] }
}

enum TestContainer {
    /// A container on a store file of its own, as an app makes one.
    static func make(_ types: [any SwiftData.PersistentModel.Type] = [Library.self, Book.self, Shelf.self]) throws -> (SwiftData.ModelContainer, URL) {
        let url = URL.temporaryDirectory.appending(path: "swiftdata-compat-\(UUID().uuidString)/books.store")
        let configuration = SwiftData.ModelConfiguration(url: url)
        return (try SwiftData.ModelContainer(for: Schema(types), configurations: configuration), url)
    }

    /// A fresh context of a new container on the file `make` gave: what a restarted app reads.
    static func reopened(_ url: URL) throws -> SwiftData.ModelContext {
        SwiftData.ModelContext(try SwiftData.ModelContainer(for: Library.self, Book.self, Shelf.self, configurations: SwiftData.ModelConfiguration(url: url)))
    }
}
