/// The demo's movies and cast: a small data set shipped with the code.
public struct MovieCatalog: Sendable {
    /// A movie.
    public struct Movie: Sendable, Hashable {
        public var id: Int
        public var title: String
        public var year: Int
        public var synopsis: String
        public var cast: [Int]
    }

    /// A cast member.
    public struct CastMember: Sendable, Hashable {
        public var id: Int
        public var name: String
    }

    /// Every movie, by id order.
    public let movies: [Movie]
    /// Every cast member, by id order.
    public let cast: [CastMember]
    /// The movies of the wishlist tab.
    public let wishlist: [Int]
    /// The movies of the watched tab.
    public let watched: [Int]

    /// The movie with `id`.
    public func movie(_ id: Int) -> Movie? { movies.first { $0.id == id } }
    /// The cast member with `id`.
    public func member(_ id: Int) -> CastMember? { cast.first { $0.id == id } }
    /// The movies `member` played in.
    public func movies(of member: Int) -> [Movie] { movies.filter { $0.cast.contains(member) } }

    /// The shipped data set: 14 films and 30 of their actors.
    public static let demo = MovieCatalog(
        movies: [
            Movie(
                id: 1, title: "Alien", year: 1979,
                synopsis:
                    "A towing ship's crew answers a distress call and brings back something that hunts them one by one.",
                cast: [1, 2, 3]),
            Movie(
                id: 2, title: "Blade Runner", year: 1982,
                synopsis:
                    "In a rain-soaked Los Angeles, a retired hunter of artificial humans is called back for one last job.",
                cast: [4, 5, 6]),
            Movie(
                id: 3, title: "The Matrix", year: 1999,
                synopsis: "A programmer learns that the world he knows is a simulation and joins the few who fight it.",
                cast: [7, 8, 9]),
            Movie(
                id: 4, title: "Arrival", year: 2016,
                synopsis: "A linguist races to understand visitors from space before fear turns nations against them.",
                cast: [10, 11, 12]),
            Movie(
                id: 5, title: "Inception", year: 2010,
                synopsis: "A thief who steals secrets from dreams is hired to plant an idea instead.",
                cast: [13, 14, 15]),
            Movie(
                id: 6, title: "Interstellar", year: 2014,
                synopsis: "Explorers travel through a wormhole to find humanity a new home as Earth fails.",
                cast: [16, 17, 18]),
            Movie(
                id: 7, title: "Mad Max: Fury Road", year: 2015,
                synopsis: "In a desert wasteland, a drifter and a rebel commander flee a tyrant across the sand.",
                cast: [19, 20, 21]),
            Movie(
                id: 8, title: "The Grand Budapest Hotel", year: 2014,
                synopsis: "A legendary concierge and his lobby boy are caught up in the theft of a priceless painting.",
                cast: [22, 23, 24]),
            Movie(
                id: 9, title: "Her", year: 2013,
                synopsis: "A lonely writer falls in love with the voice of his computer's operating system.",
                cast: [25, 26, 10]),
            Movie(
                id: 10, title: "The Martian", year: 2015,
                synopsis: "Stranded on Mars, a botanist has to grow food and signal Earth to survive.",
                cast: [27, 18, 28]),
            Movie(
                id: 11, title: "Dune", year: 2021,
                synopsis: "The heir of a noble house is sent to the desert planet that everyone wants.",
                cast: [29, 30, 31]),
            Movie(
                id: 12, title: "Ex Machina", year: 2014,
                synopsis: "A young programmer is invited to judge whether a humanoid robot is truly conscious.",
                cast: [32, 33, 31]),
            Movie(
                id: 13, title: "Gravity", year: 2013,
                synopsis: "Two astronauts are left adrift in orbit after debris destroys their shuttle.",
                cast: [34, 35]),
            Movie(
                id: 14, title: "Ocean's Eleven", year: 2001,
                synopsis: "A charming thief assembles a crew to rob three Las Vegas casinos in one night.",
                cast: [35, 36, 37]),
        ],
        cast: [
            CastMember(id: 1, name: "Sigourney Weaver"), CastMember(id: 2, name: "Tom Skerritt"),
            CastMember(id: 3, name: "John Hurt"),
            CastMember(id: 4, name: "Harrison Ford"), CastMember(id: 5, name: "Rutger Hauer"),
            CastMember(id: 6, name: "Sean Young"),
            CastMember(id: 7, name: "Keanu Reeves"), CastMember(id: 8, name: "Laurence Fishburne"),
            CastMember(id: 9, name: "Carrie-Anne Moss"),
            CastMember(id: 10, name: "Amy Adams"), CastMember(id: 11, name: "Jeremy Renner"),
            CastMember(id: 12, name: "Forest Whitaker"),
            CastMember(id: 13, name: "Leonardo DiCaprio"), CastMember(id: 14, name: "Joseph Gordon-Levitt"),
            CastMember(id: 15, name: "Elliot Page"),
            CastMember(id: 16, name: "Matthew McConaughey"), CastMember(id: 17, name: "Anne Hathaway"),
            CastMember(id: 18, name: "Jessica Chastain"),
            CastMember(id: 19, name: "Tom Hardy"), CastMember(id: 20, name: "Charlize Theron"),
            CastMember(id: 21, name: "Nicholas Hoult"),
            CastMember(id: 22, name: "Ralph Fiennes"), CastMember(id: 23, name: "Tony Revolori"),
            CastMember(id: 24, name: "Saoirse Ronan"),
            CastMember(id: 25, name: "Joaquin Phoenix"), CastMember(id: 26, name: "Scarlett Johansson"),
            CastMember(id: 27, name: "Matt Damon"),
            CastMember(id: 28, name: "Chiwetel Ejiofor"), CastMember(id: 29, name: "Timothée Chalamet"),
            CastMember(id: 30, name: "Rebecca Ferguson"),
            CastMember(id: 31, name: "Oscar Isaac"), CastMember(id: 32, name: "Domhnall Gleeson"),
            CastMember(id: 33, name: "Alicia Vikander"),
            CastMember(id: 34, name: "Sandra Bullock"), CastMember(id: 35, name: "George Clooney"),
            CastMember(id: 36, name: "Brad Pitt"),
            CastMember(id: 37, name: "Julia Roberts"),
        ],
        wishlist: [1, 2, 3, 4, 5, 6, 7],
        watched: [8, 9, 10, 11, 12, 13, 14])
}
