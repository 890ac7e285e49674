#if Studio
import Foundation
import OpenSwiftData

/// A library's models, with every kind of value the studio shows and every delete rule: a
/// library cascades to its books, a book denies deletion while loans exist, tags are
/// many-to-many (nullify), an audiobook inherits from book.
enum StudioModels {
    struct Edition: Codable, Hashable {
        var number: Int
        var publisher: String
    }

    @Model final class Library {
        @Attribute(.unique) var name: String
        @Relationship(deleteRule: .cascade, inverse: \Book.library) var books: [Book] = []

        init(name: String) {
            self.name = name
        }
    }

    @Model class Book {
        var title: String
        var price: Decimal
        var published: Date
        var isbn: UUID
        var rating: Double?
        var pages: Int
        var inPrint: Bool
        var edition: Edition?
        @Attribute(.externalStorage) var cover: Data?
        var library: Library?
        @Relationship(inverse: \Tag.books) var tags: [Tag] = []
        @Relationship(deleteRule: .deny, inverse: \Loan.book) var loans: [Loan] = []

        init(title: String, price: Decimal, published: Date, pages: Int, rating: Double? = nil, inPrint: Bool = true) {
            self.title = title
            self.price = price
            self.published = published
            self.isbn = UUID()
            self.pages = pages
            self.rating = rating
            self.inPrint = inPrint
        }
    }

    @Model final class AudioBook: Book {
        var narrator: String

        init(title: String, narrator: String) {
            self.narrator = narrator
            super.init(title: title, price: 20, published: Date(timeIntervalSinceReferenceDate: 700_000_000), pages: 0)
        }
    }

    @Model final class Tag {
        var name: String
        var books: [Book] = []

        init(name: String) {
            self.name = name
        }
    }

    @Model final class Loan {
        var borrower: String
        var book: Book?

        init(borrower: String) {
            self.borrower = borrower
        }
    }

    static let types: [any PersistentModel.Type] = [Library.self, Book.self, AudioBook.self, Tag.self, Loan.self]

    /// Two libraries: "Central" with 30 books (titles "Book 01"…"Book 30", prices 1…30, every
    /// third book tagged "classic", book 5 on loan, book 7 with a cover and an edition, book 9
    /// with a title of markup), "Annex" with one audiobook; saved with author "seed".
    static func seed(_ container: ModelContainer) throws {
        let context = ModelContext(container)
        context.author = "seed"
        let central = Library(name: "Central")
        let annex = Library(name: "Annex")
        let classic = Tag(name: "classic")
        context.insert(central)
        context.insert(annex)
        context.insert(classic)
        for number in 1...30 {
            let book = Book(
                title: String(format: "Book %02d", number), price: Decimal(number), published: Date(timeIntervalSinceReferenceDate: Double(number) * 86_400),
                pages: 100 + number, rating: number.isMultiple(of: 2) ? Double(number) / 10 : nil, inPrint: number <= 20)
            context.insert(book)
            book.library = central
            if number.isMultiple(of: 3) { book.tags = [classic] }
            if number == 5 {
                let loan = Loan(borrower: "Ada")
                context.insert(loan)
                loan.book = book
            }
            if number == 7 {
                book.cover = Data(repeating: 7, count: 300_000)
                book.edition = Edition(number: 2, publisher: "Penguin")
            }
            if number == 9 { book.title = "<script>alert('Book 09')</script>" }
        }
        let audio = AudioBook(title: "Heard", narrator: "Grace")
        context.insert(audio)
        audio.library = annex
        try context.save()
    }
}
#endif
