// Progressive enhancement only: Escape closes a modal by following its Close link.
document.addEventListener("keydown", (event) => {
  if (event.key !== "Escape") return;
  const close = document.querySelector(".modal .close");
  if (close) window.location.href = close.getAttribute("href");
});
