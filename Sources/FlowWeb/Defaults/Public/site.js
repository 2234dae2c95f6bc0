// Progressive enhancement only: every page works without this file.

// Escape closes a modal by following its Close link.
document.addEventListener("keydown", (event) => {
  if (event.key !== "Escape") return;
  const close = document.querySelector(".modal .close");
  if (close) window.location.href = close.getAttribute("href");
});

// Focus goes back to what opened a modal when it closes. A modal is a page of its own here (its
// dialog takes the focus as it loads: `autofocus`, the rest `inert`), so closing it loads the
// page underneath again: the control last activated on a page without a modal is remembered per
// tab, by its text, and focused when that page comes back after a modal.
(() => {
  const opener = "flowserver.opener";
  const afterModal = "flowserver.afterModal";
  if (!window.sessionStorage) return;
  if (document.querySelector(".modal")) {
    sessionStorage.setItem(afterModal, "1");
    return;
  }
  const remembered = JSON.parse(sessionStorage.getItem(opener) || "null");
  if (sessionStorage.getItem(afterModal) && remembered && remembered.page === window.location.pathname) {
    const control = [...document.querySelectorAll("a[href], button")].find((element) => element.textContent.trim() === remembered.text);
    if (control) control.focus();
  }
  sessionStorage.removeItem(afterModal);
  document.addEventListener("click", (event) => {
    const control = event.target.closest("a[href], button");
    if (control) sessionStorage.setItem(opener, JSON.stringify({ page: window.location.pathname, text: control.textContent.trim() }));
  });
})();

// The tree follows what the user sees. A browser may restore a page from its back/forward cache
// (Back, Forward) without asking the server, although pages are sent `no-store`; the session's
// tree then still shows the page the user left. So a restored page asks for the session's top
// and, when it is not this page, loads itself again: the request the server would have had
// without the cache, which makes the visit (or follows the deep link) and shows the right page.
window.addEventListener("pageshow", (event) => {
  if (!event.persisted || window.location.pathname.startsWith("/_")) return;
  fetch("/api/v1/session", { credentials: "same-origin", cache: "no-store", headers: { Accept: "application/json" } })
    .then((response) => (response.ok ? response.json() : null))
    .then((state) => {
      if (state && state.top && state.top.url !== window.location.pathname) window.location.reload();
    })
    .catch(() => {});
});

// Live tabs: a page listens to its session's changes (`GET /_events`) and, when the session
// moves to another page (in another tab, through the API, on another instance), says so, with a
// link to the current page. Nothing changes the tree without a user action. The stream is closed
// while the page is left or kept in the back/forward cache, and opened again when it is shown.
(() => {
  const version = Number(document.body.dataset.version);
  if (!version || !window.EventSource || window.location.pathname.startsWith("/_")) return;
  let source = null;
  let shows = 0;
  const banner = document.createElement("p");
  banner.className = "live-banner";
  banner.setAttribute("role", "status");
  const show = (top) => {
    if (top.url === window.location.pathname) {
      banner.remove();
      return;
    }
    const shown = ++shows;
    banner.textContent = "This page changed in another tab — ";
    const link = document.createElement("a");
    link.href = top.url;
    link.textContent = "Go to the current page";
    banner.append(link);
    if (!banner.isConnected) document.body.prepend(banner);
    // A page still in the tree (under the new top) can be returned to: visiting it unwinds.
    fetch("/api/v1/session", { credentials: "same-origin", cache: "no-store", headers: { Accept: "application/json" } })
      .then((response) => (response.ok ? response.json() : null))
      .then((state) => {
        if (!state || shown !== shows || state.top.url !== top.url || !inTree(state.root, window.location.pathname)) return;
        const back = document.createElement("a");
        back.href = window.location.pathname;
        back.textContent = "Return to this page";
        banner.append(" or ", back);
      })
      .catch(() => {});
  };
  const inTree = (node, url) =>
    !!node && (node.url === url || [...(node.children || []), ...(node.embedded || []), node.presented].some((child) => inTree(child, url)));
  const open = () => {
    source = new EventSource("/_events?version=" + version);
    source.addEventListener("version", (event) => show(JSON.parse(event.data).top));
  };
  const close = () => {
    if (source) source.close();
    source = null;
  };
  open();
  window.addEventListener("beforeunload", close);
  window.addEventListener("pagehide", close);
  window.addEventListener("pageshow", (event) => {
    if (event.persisted && !source) open();
  });
})();
