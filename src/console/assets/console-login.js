// clawbox console: the login pages' script. After a successful login the page carries the
// session token in its body (data-session); this keeps it in the origin's localStorage
// (per scheme, host and port, unlike a cookie, which every port of the host would get)
// and opens the console, replacing this page in the history. The console script sends
// it in the X-Clawbox-Session header of every API request. See docs/CONSOLE.md.

{
  const KEY = "clawbox.console.session";
  const handed = document.body.dataset.session;
  if (handed) {
    localStorage.setItem(KEY, handed);
    delete document.body.dataset.session;
    location.replace("/");
  }
}
