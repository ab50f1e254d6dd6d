// What the bench reads from Linux's /proc: CPU time of a process (and of the children it reaped),
// its peak resident set, and the whole machine's busy time (to see load the bench did not make).
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"

/** Clock ticks per second of the /proc CPU counters. */
export const CLK_TCK = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100
  } catch {
    return 100
  }
})()

// Fields of /proc/<pid>/stat after the command name, which may itself hold spaces and parentheses.
const statFields = (pid) => {
  const text = readFileSync(`/proc/${pid}/stat`, "utf8")
  return text.slice(text.lastIndexOf(")") + 2).split(" ")
}

/** CPU seconds (user + system) the process has used so far. */
export const cpuSeconds = (pid) => {
  const f = statFields(pid)
  return (Number(f[11]) + Number(f[12])) / CLK_TCK // fields 14 (utime) and 15 (stime)
}

/** CPU seconds of the children this process has waited for (a finished load generator's time). */
export const reapedChildrenCpuSeconds = () => {
  const f = statFields("self")
  return (Number(f[13]) + Number(f[14])) / CLK_TCK // fields 16 (cutime) and 17 (cstime)
}

/** A size field of `/proc/<pid>/status` (given in kB) in bytes. */
const statusBytes = (pid, field) => {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"))
  return match === null ? Number.NaN : Number(match[1]) * 1024
}

/** Peak resident set size in bytes (VmHWM). */
export const peakRssBytes = (pid) => statusBytes(pid, "VmHWM")

/** Resident set size now, in bytes (VmRSS). */
export const rssBytes = (pid) => statusBytes(pid, "VmRSS")

/** CPU seconds all cores have spent busy (not idle or waiting for I/O) since boot. */
export const machineBusySeconds = () => {
  const [, ...values] = readFileSync("/proc/stat", "utf8").split("\n", 1)[0].trim().split(/\s+/)
  const [user, nice, system, , , irq, softirq, steal] = values.map(Number)
  return (user + nice + system + irq + softirq + (steal ?? 0)) / CLK_TCK
}

export const loadAverage = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).map(Number)
