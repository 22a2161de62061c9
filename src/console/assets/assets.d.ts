/** Bun text imports of the console's embedded client files. */
declare module "*/assets/console-core.js" {
  const text: string;
  export default text;
}
declare module "*/assets/console-chat.js" {
  const text: string;
  export default text;
}
declare module "*/assets/console-browse.js" {
  const text: string;
  export default text;
}
declare module "*/assets/console-manage.js" {
  const text: string;
  export default text;
}
declare module "*/assets/console-status.js" {
  const text: string;
  export default text;
}
declare module "*/assets/console.css" {
  const text: string;
  export default text;
}
declare module "*/assets/console-setup.js" {
  const text: string;
  export default text;
}
declare module "*/assets/console-files.js" {
  const text: string;
  export default text;
}
declare module "*/assets/console-login.js" {
  const text: string;
  export default text;
}
