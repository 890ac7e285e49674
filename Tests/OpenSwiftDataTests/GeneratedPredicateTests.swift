import Foundation
import Testing
import StoreTestSupport
import TestModels
@testable import OpenSwiftData

/// Predicates built programmatically from random combinations of nodes (fixed seeds, so every run
/// builds the same ones), each checked like the hand-written ones: the SQL result must equal
/// `Predicate.evaluate` over the same models.
@Suite struct GeneratedPredicateTests {
    static let seeds: [UInt64] = [1, 7, 42]
    static let perSeed = 150

    @Test(arguments: seeds)
    func randomPredicatesMatchEvaluate(seed: UInt64) throws {
        try check(seed: seed, on: seed == 42 ? .file : .memory)
    }

    @Test(.enabled(if: PostgresServer.url != nil, PostgresServer.skipReason), arguments: seeds)
    func randomPredicatesMatchEvaluateOnPostgres(seed: UInt64) throws {
        try check(seed: seed, on: .postgres)
    }

    private func check(seed: UInt64, on kind: StoreKind) throws {
        let store = try DifferentialPredicateTests.fixture(kind)
        let context = store.context()
        let all = try context.fetch(FetchDescriptor<QPerson>())
        var generator = RecipeGenerator(seed: seed)
        var matchedSomething = 0
        for number in 0..<Self.perSeed {
            let recipe = generator.boolean(depth: 3)
            let predicate = Predicate<QPerson> { person in recipe.build(person) }
            let expected = Set(all.filter { (try? predicate.evaluate($0)) ?? false }.map(\.persistentModelID))
            do {
                let fetched = try context.fetch(FetchDescriptor<QPerson>(predicate: predicate)).map(\.persistentModelID)
                #expect(Set(fetched) == expected, "seed \(seed) #\(number): \(recipe)")
                #expect(fetched.count == expected.count, "seed \(seed) #\(number): duplicates for \(recipe)")
            } catch {
                Issue.record("seed \(seed) #\(number): \(recipe) failed: \(error)")
            }
            if !expected.isEmpty && expected.count < all.count { matchedSomething += 1 }
        }
        // The generator must produce discriminating predicates, not only always-true or always-false ones.
        #expect(matchedSomething > Self.perSeed / 4)
    }
}

typealias BoolExpression = any StandardPredicateExpression<Bool>

/// A predicate as data: generated first (so it can be printed), built into expression nodes inside
/// the `Predicate` initialiser.
indirect enum Recipe: CustomStringConvertible {
    case and(Recipe, Recipe)
    case or(Recipe, Recipe)
    case not(Recipe)
    case ternary(Recipe, Recipe, Recipe)
    case atom(Atom)

    enum Atom {
        case age(PredicateExpressions.ComparisonOperator, Int)
        case ageArithmetic(multiplier: Int, offset: Int, PredicateExpressions.ComparisonOperator, Int)
        case ageRemainder(divisor: Int, Int)
        case ageDivision(divisor: Int, Int)
        case height(PredicateExpressions.ComparisonOperator, Double)
        case scoreOr(Int, PredicateExpressions.ComparisonOperator, Int)
        case scoreIsNil
        case nameEquals(String)
        case nameOrder(PredicateExpressions.ComparisonOperator, String)
        case nameContains(String)
        case nameStarts(String)
        case nameSearch(String)
        case nicknameEquals(String?)
        case active
        case rank(Rank)
        case teamName(String)
        case teamIsNil
        case mentorName(String)
        case tagsContain(String)
        case scoresAny(above: Int)
        case scoresAll(atLeast: Int)
        case scoresCount(PredicateExpressions.ComparisonOperator, Int)
        case nameIn([String])
        case ageIn(ClosedRange<Int>)
    }

    var description: String {
        switch self {
        case .and(let a, let b): return "(\(a) && \(b))"
        case .or(let a, let b): return "(\(a) || \(b))"
        case .not(let a): return "!\(a)"
        case .ternary(let t, let a, let b): return "(\(t) ? \(a) : \(b))"
        case .atom(let atom): return "\(atom)"
        }
    }

    func build(_ person: PredicateExpressions.Variable<QPerson>) -> BoolExpression {
        switch self {
        case .and(let a, let b): return Recipe.conjunction(a.build(person), b.build(person))
        case .or(let a, let b): return Recipe.disjunction(a.build(person), b.build(person))
        case .not(let a): return Recipe.negation(a.build(person))
        case .ternary(let t, let a, let b): return Recipe.conditional(t.build(person), a.build(person), b.build(person))
        case .atom(let atom): return Recipe.build(atom, person)
        }
    }

    private static func conjunction<A: StandardPredicateExpression<Bool>, B: StandardPredicateExpression<Bool>>(_ a: A, _ b: B) -> BoolExpression {
        PredicateExpressions.build_Conjunction(lhs: a, rhs: b)
    }
    private static func disjunction<A: StandardPredicateExpression<Bool>, B: StandardPredicateExpression<Bool>>(_ a: A, _ b: B) -> BoolExpression {
        PredicateExpressions.build_Disjunction(lhs: a, rhs: b)
    }
    private static func negation<A: StandardPredicateExpression<Bool>>(_ a: A) -> BoolExpression {
        PredicateExpressions.build_Negation(a)
    }
    private static func conditional<T: StandardPredicateExpression<Bool>, A: StandardPredicateExpression<Bool>, B: StandardPredicateExpression<Bool>>(_ t: T, _ a: A, _ b: B) -> BoolExpression {
        PredicateExpressions.build_Conditional(t, a, b)
    }

    private static func build(_ atom: Atom, _ person: PredicateExpressions.Variable<QPerson>) -> BoolExpression {
        typealias P = PredicateExpressions
        switch atom {
        case .age(let op, let value):
            return P.build_Comparison(lhs: P.build_KeyPath(root: person, keyPath: \.age), rhs: P.build_Arg(value), op: op)
        case .ageArithmetic(let multiplier, let offset, let op, let value):
            let scaled = P.build_Arithmetic(lhs: P.build_KeyPath(root: person, keyPath: \.age), rhs: P.build_Arg(multiplier), op: .multiply)
            let shifted = P.build_Arithmetic(lhs: scaled, rhs: P.build_Arg(offset), op: .subtract)
            return P.build_Comparison(lhs: shifted, rhs: P.build_Arg(value), op: op)
        case .ageRemainder(let divisor, let value):
            return P.build_Equal(lhs: P.build_Remainder(lhs: P.build_KeyPath(root: person, keyPath: \.age), rhs: P.build_Arg(divisor)), rhs: P.build_Arg(value))
        case .ageDivision(let divisor, let value):
            return P.build_Equal(lhs: P.build_Division(lhs: P.build_KeyPath(root: person, keyPath: \.age), rhs: P.build_Arg(divisor)), rhs: P.build_Arg(value))
        case .height(let op, let value):
            return P.build_Comparison(lhs: P.build_KeyPath(root: person, keyPath: \.height), rhs: P.build_Arg(value), op: op)
        case .scoreOr(let fallback, let op, let value):
            let score = P.build_NilCoalesce(lhs: P.build_KeyPath(root: person, keyPath: \.score), rhs: P.build_Arg(fallback))
            return P.build_Comparison(lhs: score, rhs: P.build_Arg(value), op: op)
        case .scoreIsNil:
            return P.build_Equal(lhs: P.build_KeyPath(root: person, keyPath: \.score), rhs: P.build_NilLiteral())
        case .nameEquals(let name):
            return P.build_Equal(lhs: P.build_KeyPath(root: person, keyPath: \.name), rhs: P.build_Arg(name))
        case .nameOrder(let op, let name):
            return P.build_Comparison(lhs: P.build_KeyPath(root: person, keyPath: \.name), rhs: P.build_Arg(name), op: op)
        case .nameContains(let part):
            return P.build_contains(P.build_KeyPath(root: person, keyPath: \.name), P.build_Arg(part))
        case .nameStarts(let prefix):
            return P.build_starts(P.build_KeyPath(root: person, keyPath: \.name), with: P.build_Arg(prefix))
        case .nameSearch(let text):
            return P.build_localizedStandardContains(P.build_KeyPath(root: person, keyPath: \.name), P.build_Arg(text))
        case .nicknameEquals(let nickname):
            return P.build_Equal(lhs: P.build_KeyPath(root: person, keyPath: \.nickname), rhs: P.build_Arg(nickname))
        case .active:
            return P.build_KeyPath(root: person, keyPath: \.isActive)
        case .rank(let rank):
            return P.build_Equal(lhs: P.build_KeyPath(root: person, keyPath: \.rank), rhs: P.build_Arg(rank))
        case .teamName(let name):
            let teamName = P.build_flatMap(P.build_KeyPath(root: person, keyPath: \.team)) { team in
                P.build_KeyPath(root: team, keyPath: \.name)
            }
            return P.build_Equal(lhs: teamName, rhs: P.build_Arg(Optional(name)))
        case .teamIsNil:
            return P.build_Equal(lhs: P.build_KeyPath(root: person, keyPath: \.team), rhs: P.build_NilLiteral())
        case .mentorName(let name):
            let mentorName = P.build_flatMap(P.build_KeyPath(root: person, keyPath: \.mentor)) { mentor in
                P.build_KeyPath(root: mentor, keyPath: \.name)
            }
            return P.build_Equal(lhs: mentorName, rhs: P.build_Arg(Optional(name)))
        case .tagsContain(let tag):
            return P.build_contains(P.build_KeyPath(root: person, keyPath: \.tags), P.build_Arg(tag))
        case .scoresAny(let threshold):
            return P.build_contains(P.build_KeyPath(root: person, keyPath: \.scores), where: { score in
                P.build_Comparison(lhs: score, rhs: P.build_Arg(threshold), op: .greaterThan)
            })
        case .scoresAll(let threshold):
            return P.build_allSatisfy(P.build_KeyPath(root: person, keyPath: \.scores)) { score in
                P.build_Comparison(lhs: score, rhs: P.build_Arg(threshold), op: .greaterThanOrEqual)
            }
        case .scoresCount(let op, let value):
            return P.build_Comparison(lhs: P.build_KeyPath(root: P.build_KeyPath(root: person, keyPath: \.scores), keyPath: \.count), rhs: P.build_Arg(value), op: op)
        case .nameIn(let names):
            return P.build_contains(P.build_Arg(names), P.build_KeyPath(root: person, keyPath: \.name))
        case .ageIn(let range):
            return P.build_contains(P.build_Arg(range), P.build_KeyPath(root: person, keyPath: \.age))
        }
    }
}

/// Random recipes over the query fixture's values, so many of them match some rows.
struct RecipeGenerator {
    var random: SplitMix64

    init(seed: UInt64) { random = SplitMix64(state: seed) }

    static let operators: [PredicateExpressions.ComparisonOperator] = [.lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual]
    static let names = ["Ann", "Bob", "bob", "Anne", "José", "Jose\u{301}", "ข้าวหอม", "", "Zoë 👩‍💻", "O'Brien \"Bo\"", "M"]
    static let fragments = ["a", "n", "An", "o", "é", "e", "หอม", "", "'", "Bo", "x"]
    static let ages = [0, 19, 25, 29, 34, 38, 41, 52]

    mutating func boolean(depth: Int) -> Recipe {
        if depth == 0 || random.below(10) < 3 { return .atom(atom()) }
        switch random.below(7) {
        case 0, 1: return .and(boolean(depth: depth - 1), boolean(depth: depth - 1))
        case 2, 3: return .or(boolean(depth: depth - 1), boolean(depth: depth - 1))
        case 4: return .ternary(boolean(depth: depth - 1), boolean(depth: depth - 1), boolean(depth: depth - 1))
        default: return .not(boolean(depth: depth - 1))
        }
    }

    mutating func atom() -> Recipe.Atom {
        let op = random.pick(Self.operators)
        switch random.below(24) {
        case 0: return .age(op, random.pick(Self.ages))
        case 1: return .ageArithmetic(multiplier: random.pick([1, 2, 3]), offset: random.pick([0, 5, 40]), op, random.pick([0, 30, 60, 90]))
        case 2: return .ageRemainder(divisor: random.pick([2, 3, 7]), random.pick([0, 1, 2]))
        case 3: return .ageDivision(divisor: random.pick([5, 10]), random.pick([2, 3, 4]))
        case 4: return .height(op, random.pick([0.5, 1.6, 1.7, 1.75, 1.8]))
        case 5: return .scoreOr(random.pick([0, -10, 100]), op, random.pick([-5, 0, 50, 72, 90]))
        case 6: return .scoreIsNil
        case 7: return .nameEquals(random.pick(Self.names))
        case 8: return .nameOrder(op, random.pick(Self.names))
        case 9: return .nameContains(random.pick(Self.fragments))
        case 10: return .nameStarts(random.pick(Self.fragments))
        case 11: return .nameSearch(random.pick(["ANN", "jose", "o", "BOB", "หอม", "zoe"]))
        case 12: return .nicknameEquals(random.pick([nil, "", "Bobby", "Pepe", "x"]))
        case 13: return .active
        case 14: return .rank(random.pick(Rank.allCases))
        case 15: return .teamName(random.pick(["Lions", "Tigers", "Owls", ""]))
        case 16: return .teamIsNil
        case 17: return .mentorName(random.pick(["Ann", "Bob", "José", "Nobody"]))
        case 18: return .tagsContain(random.pick(["swift", "linux", "ไทย", "SQL", "none"]))
        case 19: return .scoresAny(above: random.pick([0, 60, 90, 99]))
        case 20: return .scoresAll(atLeast: random.pick([0, 50, 60, 100]))
        case 21: return .scoresCount(op, random.pick([0, 1, 2, 3]))
        case 22: return .nameIn(Array(Self.names.shuffled(using: &random).prefix(3)))
        default:
            let low = random.pick(Self.ages)
            return .ageIn(low...(low + random.pick([0, 5, 15])))
        }
    }
}

