import Foundation
import OpenSwiftData

// The query engine's data model: people, teams and sponsors, with every kind of attribute and
// relationship a predicate can reach.

enum Rank: Int, Codable, CaseIterable {
    case rookie = 1, regular = 2, captain = 3
}

@Model
final class QTeam {
    var name: String
    var city: String?
    var founded: Int
    @Relationship(deleteRule: .nullify, inverse: \QPerson.team)
    var members: [QPerson] = []
    var sponsors: [QSponsor] = []

    init(name: String, city: String?, founded: Int) {
        self.name = name
        self.city = city
        self.founded = founded
    }
}

@Model
final class QPerson {
    var name: String
    var nickname: String?
    var age: Int
    var height: Double
    var score: Int?
    var isActive: Bool
    var birthday: Date
    var joined: Date?
    var rank: Rank
    var mood: Mood?
    var tags: [String]
    var scores: [Int]
    var attributes: [String: Int]
    var code: UUID
    var team: QTeam?
    var mentor: QPerson?

    init(name: String, nickname: String?, age: Int, height: Double, score: Int?, isActive: Bool,
         birthday: Date, joined: Date?, rank: Rank, mood: Mood?, tags: [String], scores: [Int],
         attributes: [String: Int], code: UUID = UUID(), team: QTeam?) {
        self.name = name
        self.nickname = nickname
        self.age = age
        self.height = height
        self.score = score
        self.isActive = isActive
        self.birthday = birthday
        self.joined = joined
        self.rank = rank
        self.mood = mood
        self.tags = tags
        self.scores = scores
        self.attributes = attributes
        self.code = code
        self.team = team
    }
}

@Model
final class QSponsor {
    var name: String
    var budget: Decimal
    @Relationship(inverse: \QTeam.sponsors)
    var teams: [QTeam] = []

    init(name: String, budget: Decimal) {
        self.name = name
        self.budget = budget
    }
}

/// A seeded data set with edge cases: nil values, empty strings, unicode in several forms, quotes,
/// duplicates, boundaries, people without a team, teams without members.
enum QueryFixture {
    static let day: TimeInterval = 86_400
    static let epoch = Date(timeIntervalSinceReferenceDate: 700_000_000)
    static let fixedCode = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F") ?? UUID()

    static func seed(_ context: ModelContext) throws {
        let lions = QTeam(name: "Lions", city: "Bangkok", founded: 1990)
        let tigers = QTeam(name: "Tigers", city: nil, founded: 2005)
        let owls = QTeam(name: "Owls", city: "Hà Nội", founded: 1975)       // no members
        let empty = QTeam(name: "", city: "", founded: 0)                   // empty strings
        for team in [lions, tigers, owls, empty] { context.insert(team) }

        let acme = QSponsor(name: "Acme", budget: Decimal(string: "1500.25") ?? 0)
        let small = QSponsor(name: "O'Neil & Sons", budget: Decimal(string: "99.5") ?? 0)
        let idle = QSponsor(name: "Idle", budget: 0)                        // sponsors no team
        for sponsor in [acme, small, idle] { context.insert(sponsor) }
        lions.sponsors = [acme, small]
        tigers.sponsors = [acme]

        func person(_ name: String, _ nickname: String?, _ age: Int, _ height: Double, _ score: Int?, _ active: Bool,
                    _ birthdayOffset: Double, _ joinedOffset: Double?, _ rank: Rank, _ mood: Mood?,
                    _ tags: [String], _ scores: [Int], _ attributes: [String: Int], _ team: QTeam?, code: UUID = UUID()) -> QPerson {
            QPerson(name: name, nickname: nickname, age: age, height: height, score: score, isActive: active,
                    birthday: epoch.addingTimeInterval(birthdayOffset * day), joined: joinedOffset.map { epoch.addingTimeInterval($0 * day) },
                    rank: rank, mood: mood, tags: tags, scores: scores, attributes: attributes, code: code, team: team)
        }
        let people = [
            person("Ann", "Annie", 34, 1.65, 88, true, -12_000, 10, .captain, .happy, ["swift", "linux"], [90, 95, 99], ["speed": 5, "power": 3], lions, code: fixedCode),
            person("Bob", nil, 41, 1.80, nil, true, -15_000, nil, .regular, nil, [], [40, 60], ["speed": 2], lions),
            person("Anne", "", 29, 1.70, 50, false, -10_500, 20, .rookie, .sad, ["swift"], [], [:], tigers),
            person("José", "Pepe", 38, 1.75, 72, true, -13_800, 30, .regular, .mixed, ["linux", "server"], [75], ["power": 9], tigers),
            person("Jose\u{301}", "Pepito", 38, 1.74, 72, false, -13_800, 31, .rookie, .happy, ["linux"], [10, 100], ["speed": 4], nil),
            person("ข้าวหอม", "หอม", 25, 1.60, 100, true, -9_000, nil, .regular, nil, ["ไทย", "swift"], [100], [:], nil),
            person("O'Brien \"Bo\"", "Bo", 52, 1.90, 0, false, -19_000, 5, .captain, .sad, ["SQL", "swift"], [55, 65, 45], ["speed": 1, "power": 8], lions),
            person("Zoë 👩‍💻", nil, 19, 1.55, -5, true, -7_000, 40, .rookie, .happy, ["emoji"], [70, 80], ["speed": 7], nil),
            person("bob", "Bobby", 41, 1.80, 60, true, -15_000, 1, .regular, .mixed, ["swift"], [60], [:], tigers),   // a case-duplicate
            person("", nil, 0, 0.5, nil, false, 0, nil, .rookie, nil, [], [], [:], nil),                              // boundaries
        ]
        for member in people { context.insert(member) }
        people[1].mentor = people[0]
        people[2].mentor = people[0]
        people[4].mentor = people[3]
        people[8].mentor = people[1]
        try context.save()
    }
}

/// Arrays whose JSON form differs from the stored form of their elements.
@Model
final class Sample2 {
    var ids: [UUID] = []
    init() {}
}
