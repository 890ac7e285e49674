import Foundation
import Testing
#if canImport(SwiftData)
import SwiftData
#endif

/// `Schema` as SwiftData offers it: entities by model type, `Codable`, schemas described by hand,
/// and the index and uniqueness declarations.
@Suite struct SchemaAPITests {
    @Test func entitiesAreFoundByModelType() throws {
        let schema = Schema([Library.self, Book.self, Shelf.self])
        #expect(Schema.entityName(for: Book.self) == "Book")
        let book = try #require(schema.entity(for: Book.self))
        #expect(book.name == "Book")
        #expect(book.attributesByName["title"]?.valueType == String.self)
        #expect(book.attributesByName["subtitle"]?.isOptional == true)
        #expect(book.attributesByName["cover"]?.isTransformable == true)
        #expect(book.relationshipsByName["library"]?.destination == "Library")
        // Both #Index forms: variadic kinds and arrays of kinds; .rtree is an ordinary index here.
        #expect(book.indices == [["title"], ["latitude", "longitude"]])
        #expect(schema.entity(for: Shelf.self)?.indices == [["label"], ["x", "y"]])
        #expect(schema.entity(for: Library.self)?.uniquenessConstraints == [["code"]])
        #expect(Schema([Book.self]).entity(for: Shelf.self) == nil)
        #expect(Schema().entities.isEmpty)
    }

    @Test func schemasRoundTripThroughCodable() throws {
        let schema = Schema([Library.self, Book.self], version: Schema.Version(3, 1, 0))
        let data = try JSONEncoder().encode(schema)
        let decoded = try JSONDecoder().decode(Schema.self, from: data)
        #expect(decoded == schema)
        #expect(decoded.version == Schema.Version(3, 1, 0))
        #expect(decoded.entities.map(\.name) == schema.entities.map(\.name))
        let book = try #require(decoded.entitiesByName["Book"])
        #expect(book.attributesByName["latitude"]?.valueType == Double.self)
        #expect(book.attributesByName["subtitle"]?.valueType == String?.self)
        #expect(book.attributesByName["cover"]?.isTransformable == true)
        #expect(book.relationshipsByName["library"]?.isToOneRelationship == true)
        #expect(decoded.entitiesByName["Library"]?.relationshipsByName["books"]?.deleteRule == .cascade)
        #expect(decoded.entitiesByName["Library"]?.relationshipsByName["books"]?.inverseName == "library")
        // A schema with one more model is a different schema.
        #expect(try JSONDecoder().decode(Schema.self, from: JSONEncoder().encode(Schema([Library.self, Book.self, Shelf.self]))) != schema)
    }

    @Test func schemasCanBeDescribedByHand() throws {
        let trip = Schema.Entity("Trip", properties:
            Schema.Attribute(name: "name", options: [.unique], valueType: String.self),
            Schema.Attribute(name: "rating", valueType: Int?.self, defaultValue: 3))
        let businessTrip = Schema.Entity("BusinessTrip", properties: Schema.Attribute(name: "purpose", valueType: String.self))
        let root = Schema.Entity("Journey", subentities: businessTrip, properties: Schema.Attribute(name: "code", valueType: String.self))
        let schema = Schema(trip, root, version: Schema.Version(1, 1, 0))

        #expect(Set(schema.entities.map(\.name)) == ["Trip", "Journey", "BusinessTrip"])
        let rating = try #require(schema.entitiesByName["Trip"]?.attributesByName["rating"])
        #expect(rating.isOptional && rating.defaultValue as? Int == 3 && rating.entityName == "Trip")
        #expect(schema.entitiesByName["Trip"]?.attributesByName["name"]?.isUnique == true)
        #expect(schema.entitiesByName["BusinessTrip"]?.superentity?.name == "Journey")
        #expect(schema.entitiesByName["Journey"]?.subentities.map(\.name) == ["BusinessTrip"])
        #expect(try JSONDecoder().decode(Schema.self, from: JSONEncoder().encode(schema)) == schema)

        // A store needs the classes: a described schema is refused with a message that says so.
        #expect {
            _ = try ModelContainer(for: schema, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        } throws: { error in
            "\(error)".contains("without their @Model classes")
        }
    }

    @Test func handDescribedEntitiesCanBeChanged() throws {
        let entity = Schema.Entity("Draft", properties: Schema.Attribute(name: "title", valueType: String.self))
        entity.name = "Note"
        let body = Schema.Attribute(name: "body", valueType: String?.self)
        entity.attributes.insert(body)
        #expect(entity.properties.map(\.name) == ["title", "body"])
        #expect(entity.attributesByName["body"]?.isOptional == true)
        entity.attributes.remove(try #require(entity.attributesByName["title"]))
        #expect(entity.properties.map(\.name) == ["body"])
        entity.uniquenessConstraints = [["body"]]
        entity.indices = [["body"]]
        let parent = Schema.Entity("Document")
        entity.superentity = parent
        parent.subentities = [entity]
        let schema = Schema(parent, entity)
        #expect(schema.entitiesByName["Note"]?.superentityName == "Document")
        #expect(schema.entitiesByName["Note"]?.uniquenessConstraints == [["body"]])
        #expect(try JSONDecoder().decode(Schema.self, from: JSONEncoder().encode(schema)) == schema)
    }

    @Test func indexAndUniqueDeclarationsAreValues() {
        let indexes = Schema.Index<Book>(.binary([\.title]), .rtree([\.latitude, \.longitude]))
        #expect(indexes.indices.map(\.keyPaths) == [[\Book.title], [\Book.latitude, \Book.longitude]])
        let unique = Schema.Unique<Library>([\.code], [\.name, \.code])
        #expect(unique.constraints == [[\Library.code], [\Library.name, \Library.code]])
    }

    /// iOS 27's `@Attribute(.codable)`: a third party's `Codable` type stored whole.
    @Test func codableAttributesAreStoredWhole() throws {
        let (container, _) = try TestContainer.make([Reader.self])
        let context = SwiftData.ModelContext(container)
        context.insert(Reader(name: "Ana", reading: ReadingState(bookTitle: "Dune", page: 212)))
        try context.save()
        let reader = try #require(try SwiftData.ModelContext(container).fetch(FetchDescriptor<Reader>()).first)
        #expect(reader.reading == ReadingState(bookTitle: "Dune", page: 212))
        let attribute = try #require(Schema([Reader.self]).entities.first?.attributes.first { $0.name == "reading" })
        #expect(attribute.isCodable)
        #expect(attribute.options.contains(Schema.Attribute.Option.codable))
    }
}
