/** Bun text imports of the console's embedded client files. */
declare module "*/assets/console.js" {
  const text: string;
  export default text;
}
declare module "*/assets/console.css" {
  const text: string;
  export default text;
}
