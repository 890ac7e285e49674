import Foundation
import OpenSwiftData

// Seed 000: the expense tracker.

@Model
final class Expense {
    var amount: Double
    var date: Date
    var note: String?
    var category: Category?

    init(amount: Double, date: Date = .now, note: String? = nil, category: Category? = nil) {
        self.amount = amount
        self.date = date
        self.note = note
        self.category = category
    }
}

@Model
final class Category {
    var name: String
    @Relationship(deleteRule: .nullify, inverse: \Expense.category)
    var expenses: [Expense] = []

    init(name: String) {
        self.name = name
    }
}

// Seed 001: the school.

@Model
final class Classroom {
    var name: String
    var teacher: String
    @Relationship(deleteRule: .cascade, inverse: \Student.room)
    var studentList: [Student] = []

    init(name: String, teacher: String) {
        self.name = name
        self.teacher = teacher
    }
}

@Model
final class Student {
    var name: String
    var gender: String
    var score: Double
    @Relationship(deleteRule: .nullify)
    var room: Classroom?

    init(name: String, gender: String, score: Double, room: Classroom? = nil) {
        self.name = name
        self.gender = gender
        self.score = score
        self.room = room
    }
}

// Delete rules not covered by the seeds.

@Model
final class Team {
    var name: String
    @Relationship(deleteRule: .deny, inverse: \Member.team)
    var members: [Member] = []
    init(name: String) { self.name = name }
}

@Model
final class Member {
    var name: String
    var team: Team?
    init(name: String, team: Team? = nil) {
        self.name = name
        self.team = team
    }
}

@Model
final class Shelf {
    var label: String
    @Relationship(deleteRule: .noAction, inverse: \Book.shelf)
    var books: [Book] = []
    init(label: String) { self.label = label }
}

@Model
final class Book {
    var title: String
    var shelf: Shelf?
    init(title: String, shelf: Shelf? = nil) {
        self.title = title
        self.shelf = shelf
    }
}

// Many-to-many, with the inverse inferred (no @Relationship on either side).

@Model
final class Course {
    var title: String
    var pupils: [Pupil] = []
    init(title: String) { self.title = title }
}

@Model
final class Pupil {
    var name: String
    var courses: [Course] = []
    init(name: String) { self.name = name }
}

// Uniqueness.

@Model
final class Tag {
    @Attribute(.unique) var name: String
    var uses: Int
    init(name: String, uses: Int = 0) {
        self.name = name
        self.uses = uses
    }
}

@Model
final class Person {
    #Unique<Person>([\.firstName, \.lastName])
    var firstName: String
    var lastName: String
    var email: String?
    init(firstName: String, lastName: String, email: String? = nil) {
        self.firstName = firstName
        self.lastName = lastName
        self.email = email
    }
}

// Every supported attribute type.

enum Mood: String, Codable, CaseIterable {
    case happy, sad
    case mixed = "mixed feelings"
}

enum Priority: Int, Codable {
    case low = 1, high = 9
}

enum Shape: Codable, Equatable {
    case circle(radius: Double)
    case rectangle(width: Double, height: Double)
}

struct Address: Codable, Equatable {
    var street: String
    var city: String
    var postcode: String?
}

@Model
final class Sample {
    var flag: Bool
    var int: Int
    var int8: Int8
    var int16: Int16
    var int32: Int32
    var int64: Int64
    var uint: UInt
    var uint8: UInt8
    var uint16: UInt16
    var uint32: UInt32
    var uint64: UInt64
    var double: Double
    var float: Float
    var decimal: Decimal
    var text: String
    var date: Date
    var data: Data
    var uuid: UUID
    var url: URL
    var mood: Mood
    var priority: Priority
    var shape: Shape
    var address: Address
    var list: [Int]
    var names: [String: Int]
    var addresses: [Address]
    var optionalInt: Int?
    var optionalText: String?
    var optionalDate: Date?
    var optionalUUID: UUID?
    var optionalMood: Mood?
    var optionalAddress: Address?
    @Transient var scratch: String = "not stored"

    init(
        flag: Bool = true, int: Int = -42, int8: Int8 = .min, int16: Int16 = .max, int32: Int32 = -7,
        int64: Int64 = .max, uint: UInt = .max, uint8: UInt8 = .max, uint16: UInt16 = 7, uint32: UInt32 = .max,
        uint64: UInt64 = .max, double: Double = 3.141592653589793, float: Float = 1.5,
        decimal: Decimal = Decimal(string: "12345678901234567890.123456789")!,
        text: String = "plain", date: Date = Date(timeIntervalSinceReferenceDate: 123_456_789.123_456),
        data: Data = Data([0, 1, 2, 255]), uuid: UUID = UUID(), url: URL = URL(string: "https://example.com/a?b=c")!,
        mood: Mood = .happy, priority: Priority = .high, shape: Shape = .rectangle(width: 2, height: 3),
        address: Address = Address(street: "1 Main St", city: "Springfield", postcode: nil),
        list: [Int] = [3, 1, 2], names: [String: Int] = ["a": 1, "b": 2],
        addresses: [Address] = [], optionalInt: Int? = nil, optionalText: String? = nil, optionalDate: Date? = nil,
        optionalUUID: UUID? = nil, optionalMood: Mood? = nil, optionalAddress: Address? = nil
    ) {
        self.flag = flag
        self.int = int
        self.int8 = int8
        self.int16 = int16
        self.int32 = int32
        self.int64 = int64
        self.uint = uint
        self.uint8 = uint8
        self.uint16 = uint16
        self.uint32 = uint32
        self.uint64 = uint64
        self.double = double
        self.float = float
        self.decimal = decimal
        self.text = text
        self.date = date
        self.data = data
        self.uuid = uuid
        self.url = url
        self.mood = mood
        self.priority = priority
        self.shape = shape
        self.address = address
        self.list = list
        self.names = names
        self.addresses = addresses
        self.optionalInt = optionalInt
        self.optionalText = optionalText
        self.optionalDate = optionalDate
        self.optionalUUID = optionalUUID
        self.optionalMood = optionalMood
        self.optionalAddress = optionalAddress
    }
}

// Relationship shapes: optional to-many, no inverse on either kind, bounded counts.

@Model
final class Playlist {
    var name: String
    var songs: [Song]? = []
    /// A to-one without inverse: stored as a foreign key on Playlist.
    var pinned: Song?
    /// A to-many without inverse: stored in a join table.
    var recommended: [Song] = []
    init(name: String) { self.name = name }
}

@Model
final class Song {
    var title: String
    @Relationship(inverse: \Playlist.songs)
    var playlist: Playlist?
    init(title: String) { self.title = title }
}

@Model
final class Pair {
    var label: String
    @Relationship(deleteRule: .cascade, minimumModelCount: 1, maximumModelCount: 2)
    var parts: [Part] = []
    init(label: String) { self.label = label }
}

@Model
final class Part {
    var name: String
    var pair: Pair?
    init(name: String) { self.name = name }
}

// Declarations SwiftData accepts: inferred property types, a model's own `id`, non-final classes.

@Model
final class Counter {
    var count = 0
    var label = "untitled"
    init() {}
}

@Model
class Badge {
    var id: UUID
    var name: String
    init(name: String) {
        self.id = UUID()
        self.name = name
    }
}

// SampleTrips' second configuration: people and addresses in their own store.

@Model
final class Trip {
    var name: String
    var destination: String
    init(name: String, destination: String) {
        self.name = name
        self.destination = destination
    }
}

@Model
final class Traveller {
    var name: String
    var home: Home?
    init(name: String, home: Home? = nil) {
        self.name = name
        self.home = home
    }
}

@Model
final class Home {
    var city: String
    init(city: String) { self.city = city }
}

// A one-way relationship (Pet does not point back), which two configurations could split.

@Model
final class Owner {
    var name: String
    var pet: Pet?
    init(name: String) { self.name = name }
}

@Model
final class Pet {
    var name: String
    init(name: String) { self.name = name }
}

// A required (non-optional) to-one.

@Model
final class Folder {
    var name: String
    var files: [File] = []
    init(name: String) { self.name = name }
}

@Model
final class File {
    var name: String
    var folder: Folder
    init(name: String, folder: Folder) {
        self.name = name
        self.folder = folder
    }
}

// SwiftData's upsert and relationships: a venue unique by name, with one-to-one and one-to-many
// relationships under each delete rule and a many-to-many; a fixture unique by code holds the
// other ends.

@Model
final class Venue {
    #Unique<Venue>([\.name])
    var name: String
    var capacity: Int
    @Relationship(deleteRule: .cascade, inverse: \Fixture.boothOf) var booth: Fixture?
    @Relationship(deleteRule: .nullify, inverse: \Fixture.signOf) var sign: Fixture?
    @Relationship(deleteRule: .cascade, inverse: \Fixture.stallOf) var stalls: [Fixture] = []
    @Relationship(deleteRule: .nullify, inverse: \Fixture.posterOf) var posters: [Fixture] = []
    @Relationship(deleteRule: .deny, inverse: \Fixture.guardOf) var guards: [Fixture] = []
    @Relationship(deleteRule: .noAction, inverse: \Fixture.lampOf) var lamps: [Fixture] = []
    @Relationship(inverse: \Fixture.regularAt) var regulars: [Fixture] = []
    init(name: String, capacity: Int = 0) {
        self.name = name
        self.capacity = capacity
    }
}

@Model
final class Fixture {
    #Unique<Fixture>([\.code])
    var code: String
    var label: String
    var boothOf: Venue?
    var signOf: Venue?
    var stallOf: Venue?
    var posterOf: Venue?
    var guardOf: Venue?
    var lampOf: Venue?
    var regularAt: [Venue] = []
    init(_ code: String, label: String = "") {
        self.code = code
        self.label = label
    }
}

// A property whose name PostgreSQL would cut short (64 bytes and more).

@Model
final class LongNamedShipment {
    var destinationWarehouseForTheFinalLegOfTheJourneyAcrossTheSeaAndLand: String = ""
    init() {}
}

// A relationship named `owner`, beside the owner column of a store that keeps owners.

@Model
final class Collar {
    var size: Int
    var owner: Owner?
    init(size: Int, owner: Owner? = nil) {
        self.size = size
        self.owner = owner
    }
}
