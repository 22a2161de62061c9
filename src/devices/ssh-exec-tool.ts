/**
 * `ssh_exec(host, command)`: runs one command on a host described in TOOLS.md or
 * `tools.ssh`, through the system `ssh` in batch mode. Guarantees: the host key must
 * already be in the box's own known_hosts (StrictHostKeyChecking=yes, no global or
 * user files, no ~/.ssh/config), so an unknown or changed host is refused, never
 * trusted on first use; no password or keyboard prompts; owner-only unless the config
 * opens a host; with an allowlist, only matching commands without shell operators run;
 * a timeout and an output cap; every refusal and failure in plain words.
 */
import { runBoundedProcess } from "../system/index.ts";
import { type AgentTool, capText, textOutput } from "../tools/index.ts";
import type { Devices, SshHost } from "./device-entries.ts";

export interface SshLimits {
  timeoutMs: number;
  maxOutputChars: number;
  knownHostsFile: string;
  /** ssh binary (default "ssh" on PATH). */
  sshPath?: string;
}

const refused = (text: string) => ({ content: [{ type: "text" as const, text }], isError: true });

/** Shell operators that would let an allowed command run something else. */
const SHELL_OPERATORS = /[;&|`$<>\n\r\\(){}]/;

function globToRegex(pattern: string): RegExp {
  const body = pattern
    .trim()
    .split("*")
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join("[^;&|`$<>]*");
  return new RegExp(`^${body}$`);
}

/** Why `command` may not run on `host`, or undefined when it may. */
export function commandRefusal(host: SshHost, command: string): string | undefined {
  if (!host.allowCommands) return undefined;
  if (SHELL_OPERATORS.test(command))
    return `ssh_exec refused: ${host.name} allows only listed commands, and shell operators (; | & $ \` > < etc.) are not allowed there`;
  const normalized = command.trim().replace(/\s+/g, " ");
  if (host.allowCommands.some((pattern) => globToRegex(pattern).test(normalized))) return undefined;
  return `ssh_exec refused: "${normalized}" is not in the allowed commands for ${host.name} (${host.allowCommands.join(", ")})`;
}

export function sshArguments(host: SshHost, command: string, knownHostsFile: string): string[] {
  return [
    ...["-F", "/dev/null"],
    ...["-o", "BatchMode=yes"],
    ...["-o", "StrictHostKeyChecking=yes"],
    ...["-o", `UserKnownHostsFile=${knownHostsFile}`],
    ...["-o", "GlobalKnownHostsFile=/dev/null"],
    ...["-o", "PasswordAuthentication=no"],
    ...["-o", "KbdInteractiveAuthentication=no"],
    ...["-o", "ConnectTimeout=10"],
    ...(host.keyFile ? ["-o", "IdentitiesOnly=yes", "-i", host.keyFile] : []),
    ...["-p", String(host.port), "-l", host.user],
    "--",
    host.host,
    command,
  ];
}

/** ssh's exit 255 stderr, in words the owner can act on. */
export function explainSshFailure(host: SshHost, stderr: string, knownHostsFile: string): string {
  const where = `${host.name} (${host.user}@${host.host}:${host.port})`;
  if (
    /host key verification failed|no .*host key is known|REMOTE HOST IDENTIFICATION HAS CHANGED/i.test(
      stderr,
    )
  )
    return `ssh_exec refused: the host key of ${where} is not in the box's known_hosts (${knownHostsFile}) or has changed. After checking its fingerprint, add it with: ssh-keyscan -p ${host.port} ${host.host} >> ${knownHostsFile}`;
  if (/permission denied/i.test(stderr))
    return `ssh_exec failed: ${where} refused the login (key not accepted for user ${host.user}${host.keyFile ? `, key ${host.keyFile}` : ""})`;
  if (/connection refused/i.test(stderr))
    return `ssh_exec failed: nothing listens for SSH on ${where}`;
  if (/timed out/i.test(stderr))
    return `ssh_exec failed: ${where} did not answer (connection timed out)`;
  if (/could not resolve|name or service not known/i.test(stderr))
    return `ssh_exec failed: the host name ${host.host} of ${host.name} does not resolve`;
  if (/identity file .* not accessible|no such identity/i.test(stderr))
    return `ssh_exec failed: the key file ${host.keyFile ?? ""} for ${host.name} cannot be read`;
  return `ssh_exec failed: ssh to ${where} failed: ${stderr.split("\n").slice(-3).join(" ").trim() || "no details"}`;
}

export function createSshExecTool(devices: Devices, limits: SshLimits): AgentTool {
  const names = devices.sshHosts.map((h) => h.name);
  const hostList = devices.sshHosts
    .map((h) => `${h.name}${h.description ? ` (${h.description})` : ""}`)
    .join("; ");
  return {
    name: "ssh_exec",
    group: "runtime",
    // Owner-only unless the config opened some host; each host is checked again below.
    ownerOnly: devices.sshHosts.every((h) => h.ownerOnly),
    description: `Run one shell command on a machine of this house over SSH and get its output. Hosts: ${hostList}.`,
    parameters: {
      type: "object",
      properties: {
        host: { type: "string", enum: names },
        command: { type: "string", minLength: 1, maxLength: 4000 },
      },
      required: ["host", "command"],
      additionalProperties: false,
    },
    async execute(args, ctx) {
      const host = devices.sshHosts.find((h) => h.name === args.host);
      const command = typeof args.command === "string" ? args.command : "";
      if (!host)
        return refused(
          `ssh_exec refused: no SSH host "${String(args.host)}" (hosts: ${names.join(", ")})`,
        );
      if (host.ownerOnly && !ctx.isOwner)
        return refused(`ssh_exec refused: ${host.name} is for the owner only`);
      const why = commandRefusal(host, command);
      if (why) return refused(why);
      const result = await runBoundedProcess(
        limits.sshPath ?? "ssh",
        sshArguments(host, command, limits.knownHostsFile),
        {
          timeoutMs: limits.timeoutMs,
          maxStdoutBytes: limits.maxOutputChars * 4,
          maxStderrChars: 4000,
          signal: ctx.signal,
        },
      );
      if (result.spawnError)
        return refused(
          "ssh_exec failed: the ssh client is not installed (apt-get install openssh-client)",
        );
      if (result.timedOut)
        return refused(
          `ssh_exec failed: "${command}" on ${host.name} timed out after ${Math.round(limits.timeoutMs / 1000)} s and was stopped`,
        );
      if (result.aborted) return refused("ABORTED: ssh_exec stopped");
      if (result.code === 255)
        return refused(explainSshFailure(host, result.stderr, limits.knownHostsFile));
      const output = capText(
        [result.stdout.toString("utf8"), result.stderr].filter((s) => s.trim()).join("\n"),
        limits.maxOutputChars,
      );
      const note = result.overflow ? "\n[output cut at the cap; command stopped]" : "";
      const text = `${output}${note}\n[${host.name}: exit code ${result.code}]`.trimStart();
      return result.code === 0
        ? textOutput(text, { exitCode: 0 })
        : { content: [{ type: "text", text }], isError: true, details: { exitCode: result.code } };
    },
  };
}
