// clawbox console: the login pages' script. After a successful login the page carries the
// session token in its body (data-session); this keeps it in the origin's localStorage
// (per scheme, host and port, unlike a cookie, which every port of the host would get)
// and opens the console, replacing this page in the history. The console script sends
// it in the X-Clawbox-Session header of every API request. See docs/CONSOLE.md.

{
  const KEY = "clawbox.console.session";
  // Set by the console when a request found the session gone while text was unsaved.
  const NOTE = "clawbox.console.loggedOutNote";
  const RETURN_TO = "clawbox.console.returnTo";
  const handed = document.body.dataset.session;
  if (handed) {
    localStorage.setItem(KEY, handed);
    delete document.body.dataset.session;
    const back = sessionStorage.getItem(RETURN_TO) || "";
    sessionStorage.removeItem(RETURN_TO);
    sessionStorage.removeItem(NOTE);
    location.replace(`/${back.startsWith("#") ? back : ""}`);
  } else {
    const note = sessionStorage.getItem(NOTE);
    const form = document.querySelector("form");
    if (note && form) {
      const p = document.createElement("p");
      p.className = "result warn";
      p.id = "logged-out-note";
      p.setAttribute("role", "status");
      p.textContent = note;
      (form.querySelector("h1") || form).after(p);
    }
  }
}
