// Progressive enhancement only: every page works without this file.

// Escape closes a modal by following its Close link.
document.addEventListener("keydown", (event) => {
  if (event.key !== "Escape") return;
  const close = document.querySelector(".modal .close");
  if (close) window.location.href = close.getAttribute("href");
});

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
