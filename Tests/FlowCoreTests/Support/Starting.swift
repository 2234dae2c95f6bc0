import FlowCore
import FlowTesting

/// The onboarded app's tree right after start, as an outline.
let startedTree = """
    app#1 single
      dashboard#2 tabs selected=0
        movies#3 stack
          list#6 /wishlist *
        movies#4 stack
          list#7 /watched
        trending#5 stack
          trending#8 /trending
            embedded embedded-list#9 single
              list#11 /trending-movies
            embedded embedded-list#10 single
              list#12 /trending-cast
    """

func startedStore(onboarded: Bool = true, observers: [any NavigationObserver<TestStep>] = []) async throws
    -> FlowTestStore<TestStep>
{
    try await FlowTestStore(app: MoviesLikeApp.app(onboarded: onboarded), observers: observers)
}
