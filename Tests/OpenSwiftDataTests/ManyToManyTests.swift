import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData

/// Many-to-many relationships are stored in a join table and maintained from either side.
@Suite struct ManyToManyTests {
    @Test(arguments: StoreKind.allCases)
    func bothSidesStayConsistentAndPersist(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Course.self])
        let context = store.context()
        let math = Course(title: "Math")
        let art = Course(title: "Art")
        let ann = Pupil(name: "Ann")
        let bob = Pupil(name: "Bob")
        context.insert(math)
        math.pupils.append(ann)
        math.pupils.append(bob)
        bob.courses.append(art)
        #expect(ann.courses.map(\.title) == ["Math"])
        #expect(bob.courses.map(\.title) == ["Math", "Art"])
        #expect(art.pupils.map(\.name) == ["Bob"])
        try context.save()

        let fresh = store.context()
        let courses = try fresh.fetch(FetchDescriptor<Course>(sortBy: [SortDescriptor(\.title)]))
        #expect(courses.map { $0.pupils.map(\.name).sorted() } == [["Bob"], ["Ann", "Bob"]])
        let pupils = try fresh.fetch(FetchDescriptor<Pupil>(sortBy: [SortDescriptor(\.name)]))
        #expect(pupils.map { $0.courses.map(\.title).sorted() } == [["Math"], ["Art", "Math"]])

        // Removing from one side removes from the other, and from the store.
        courses[1].pupils.removeAll { $0.name == "Bob" }
        #expect(pupils[1].courses.map(\.title) == ["Art"])
        try fresh.save()
        let check = store.context()
        let math2 = try #require(try check.fetch(FetchDescriptor<Course>(predicate: #Predicate { $0.title == "Math" })).first)
        #expect(math2.pupils.map(\.name) == ["Ann"])
    }
}
