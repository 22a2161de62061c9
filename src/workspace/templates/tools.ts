/**
 * Default TOOLS.md. The "Cameras" and "SSH hosts" sections use a small fixed format
 * (parsed by `parseToolsMd`) that the runtime turns into camera_snapshot and ssh_exec
 * tools. The examples are inside comments, so a fresh box declares none.
 */
export const TOOLS_MD = `# TOOLS.md — devices of this house

Entries in the two sections below become tools: each camera a camera_snapshot target,
each SSH host an ssh_exec target. Format: one list item per device starting with
"- name: <id>", followed by indented "key: value" lines. Anything inside <!-- --> is
ignored; remove the comment markers to enable an example. Free notes may follow the
sections.

## Cameras
Keys: name (required, letters/digits/-/_), then one of: url (an http(s) snapshot URL
returning a JPEG or PNG, or an rtsp:// stream), device (a USB camera, /dev/video0) or
source: rpicam (the Pi camera); description, username, password_env / token_env (names
of environment variables holding the password or a bearer token; never write secrets
here). See docs/TOOLS.md.

<!--
- name: front-door
  url: http://192.168.1.50/cgi-bin/snapshot.cgi
  description: Front door, looks at the porch
  username: viewer
  password_env: CAMERA_FRONT_DOOR_PASSWORD
-->

## SSH hosts
Keys: name (required), host (required: hostname or IP), user (default: root),
port (default 22), description, key_file (private key path; default ~/.ssh/id_ed25519).

<!--
- name: nas
  host: 192.168.1.10
  user: admin
  port: 22
  description: NAS in the closet; media and backups
-->

## Notes
`;
