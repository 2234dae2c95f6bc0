import FlowCore
import FlowWeb
import MustacheTemplates

/// The wishlist tab's list, with Settings, About and Logout.
public struct WishlistPage: WebPage {
    public static let name = "wishlist"
    public static let template = "pages/wishlist"
    public var path: PagePath { "/wishlist" }
    public var title: String { "Wishlist" }
    public struct Model: Encodable, TemplateValueConvertible {
        var movies: [LinkModel]
        var settings: String
        var about: String
        /// The user's name, from the session's app data.
        var userName: String?

        public var templateValue: TemplateValue {
            var object = TemplateObject(capacity: 6)
            object.append("movies", .list(movies.map(\.templateValue)))
            object.append("settings", .string(settings))
            object.append("about", .string(about))
            object.append("userName", userName.map { .string($0) } ?? .null)
            return .object(object)
        }
    }
    public func model(in context: PageContext) throws -> Model {
        let catalog = context.catalog
        return Model(
            movies: context.movieLinks(catalog.wishlist.compactMap(catalog.movie)),
            settings: context.link(to: DemoStep.settingsAreRequired), about: context.link(to: DemoStep.aboutIsRequired),
            userName: context.services.appData(DemoSession.self).userName)
    }
}

/// The watched tab's list.
public struct WatchedPage: WebPage {
    public static let name = "watched"
    public static let template = "pages/watched"
    public var path: PagePath { "/watched" }
    public var title: String { "Watched" }
    public struct Model: Encodable, TemplateValueConvertible {
        var movies: [LinkModel]

        public var templateValue: TemplateValue { .links(movies, as: "movies") }
    }
    public func model(in context: PageContext) throws -> Model {
        let catalog = context.catalog
        return Model(movies: context.movieLinks(catalog.watched.compactMap(catalog.movie)))
    }
}

/// A movie: its year, synopsis and cast.
public struct MoviePage: WebPage {
    public static let name = "movie"
    public static let template = "pages/movie"
    public var id: Int
    public var path: PagePath { "/movies/\(id)" }
    public var title: String { MovieCatalog.demo.movie(id)?.title ?? "Movie" }
    public struct Model: Encodable, TemplateValueConvertible {
        var title: String
        var year: Int
        var synopsis: String
        var cast: [LinkModel]

        public var templateValue: TemplateValue {
            var object = TemplateObject(capacity: 6)
            object.append("title", .string(title))
            object.append("year", .int(year))
            object.append("synopsis", .string(synopsis))
            object.append("cast", .list(cast.map(\.templateValue)))
            return .object(object)
        }
    }
    public func model(in context: PageContext) throws -> Model {
        let catalog = context.catalog
        guard let movie = catalog.movie(id) else {
            return Model(title: "Unknown movie", year: 0, synopsis: "", cast: [])
        }
        return Model(
            title: movie.title, year: movie.year, synopsis: movie.synopsis,
            cast: context.castLinks(movie.cast.lazy.compactMap(catalog.member)))
    }
}

/// A cast member and the movies they played in.
public struct CastPage: WebPage {
    public static let name = "cast"
    public static let template = "pages/cast"
    public var id: Int
    public var path: PagePath { "/cast/\(id)" }
    public var title: String { MovieCatalog.demo.member(id)?.name ?? "Cast" }
    public struct Model: Encodable, TemplateValueConvertible {
        var name: String
        var movies: [LinkModel]

        public var templateValue: TemplateValue {
            var object = TemplateObject(capacity: 4)
            object.append("name", .string(name))
            object.append("movies", .list(movies.map(\.templateValue)))
            return .object(object)
        }
    }
    public func model(in context: PageContext) throws -> Model {
        let catalog = context.catalog
        return Model(name: catalog.member(id)?.name ?? "Unknown", movies: context.movieLinks(catalog.movies(of: id)))
    }
}

/// The trending tab's page; its two embedded flows show beside its heading.
public struct TrendingPage: WebPage {
    public static let name = "trending"
    public static let template = "pages/trending"
    public var path: PagePath { "/trending" }
    public var title: String { "Trending" }
    public struct Model: Encodable {}
    public func model(in context: PageContext) throws -> Model { Model() }
}

/// Trending movies (embedded in the trending page).
public struct TrendingMoviesPage: WebPage {
    public static let name = "trending-movies"
    public static let template = "pages/trending-movies"
    public var path: PagePath { "/trending/movies" }
    public var title: String { "Trending movies" }
    public struct Model: Encodable, TemplateValueConvertible {
        var movies: [LinkModel]

        public var templateValue: TemplateValue { .links(movies, as: "movies") }
    }
    public func model(in context: PageContext) throws -> Model {
        Model(movies: context.movieLinks(context.catalog.movies.sorted { $0.year > $1.year }))
    }
}

/// The cast list (embedded in the trending page).
public struct CastListPage: WebPage {
    public static let name = "cast-list"
    public static let template = "pages/cast-list"
    public var path: PagePath { "/trending/cast" }
    public var title: String { "Cast" }
    public struct Model: Encodable, TemplateValueConvertible {
        var cast: [LinkModel]

        public var templateValue: TemplateValue { .links(cast, as: "cast") }
    }
    public func model(in context: PageContext) throws -> Model {
        Model(cast: context.castLinks(context.catalog.cast))
    }
}
