/*
 * probe_cpu_info.h: what the CPU backend reports about the host: the
 * processor's name and the last-level cache that sizes STREAM's arrays
 * (at least 4x of it).
 */
#ifndef VRAMLAB_PROBE_CPU_INFO_H
#define VRAMLAB_PROBE_CPU_INFO_H

#include <stdbool.h>
#include <stddef.h>

/* The CPU model name from /proc/cpuinfo, or "CPU". */
void probe_cpu_name(char *buf, size_t len);

/* Whether the CPU runs under a hypervisor (a virtual machine). */
bool probe_cpu_virtual(void);

/* The last-level cache in bytes: sysfs (one instance), else sysconf, else
 * 32 MiB. */
double probe_llc_bytes(void);

#endif
