import Foundation
#if canImport(SwiftData)
import SwiftData
#else
import OpenSwiftData
#endif

// Seed 001: Core Data's classroom example, with SwiftData's API on an SQLite file.
// The file lives in a temporary folder and is removed at the end, so every run prints the same.

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("openswiftdata-school-\(ProcessInfo.processInfo.processIdentifier)")
let storeURL = folder.appendingPathComponent("School.store")
defer { try? FileManager.default.removeItem(at: folder) }

do {
    // Create a classroom and its students, and save them.
    do {
        let container = try ModelContainer(for: Classroom.self, configurations: ModelConfiguration(url: storeURL))
        let context = ModelContext(container)
        let room = Classroom(name: "M.6/1", teacher: "Khun Somsri")
        context.insert(room)
        for (name, gender, score) in [("Mario Maurer", "M", 67.0), ("Mai Davika", "F", 82.0)] {
            let student = Student(name: name, gender: gender, score: score)
            room.studentList.append(student)  // sets student.room too
        }
        try context.save()
    }

    // A new container on the same file, as a new launch would open it.
    let container = try ModelContainer(for: Classroom.self, configurations: ModelConfiguration(url: storeURL))
    let context = ModelContext(container)

    print("Fetch all classrooms and walk studentList:")
    for room in try context.fetch(FetchDescriptor<Classroom>()) {
        print("\(room.name), teacher \(room.teacher)")
        for student in room.studentList.sorted(by: { $0.score < $1.score }) {
            print("  \(student.line)")
        }
    }

    let mai = try context.fetch(FetchDescriptor<Student>(predicate: #Predicate { $0.name == "Mai Davika" }))[0]
    print("\nA student reaches her classroom through room: \(mai.name) → \(mai.room?.name ?? "none")")

    print("\nDelete Mai Davika (Student.room is .nullify):")
    context.delete(mai)
    try context.save()
    for room in try context.fetch(FetchDescriptor<Classroom>()) {
        print("  \(room.name) now has \(room.studentList.map(\.line).joined(separator: ", "))")
    }

    print("\nDelete the classroom (Classroom.studentList is .cascade):")
    for room in try context.fetch(FetchDescriptor<Classroom>()) { context.delete(room) }
    try context.save()
    let check = ModelContext(container)
    print("  classrooms: \(try check.fetchCount(FetchDescriptor<Classroom>())), students: \(try check.fetchCount(FetchDescriptor<Student>()))")
} catch {
    print("school: \(error)")
    exit(1)
}
