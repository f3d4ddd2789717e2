/*
 * probe_cpu_info.c: the host's name and last-level cache for the CPU
 * backend (see probe_cpu_info.h).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernels/probe_cpu_info.h"

/* The CPU model name from /proc/cpuinfo, or a generic name. */
void probe_cpu_name(char *buf, size_t len) {
    snprintf(buf, len, "CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *c = strchr(line, ':');
            if (c) {
                c++;
                while (*c == ' ' || *c == '\t')
                    c++;
                c[strcspn(c, "\n")] = 0;
                snprintf(buf, len, "%s", c);
            }
            break;
        }
    }
    fclose(f);
}

/* Whether /proc/cpuinfo's flags carry "hypervisor" (the CPUID bit every
 * x86 hypervisor sets: KVM, Xen, Hyper-V, VMware), or the device tree
 * names one (aarch64 guests). */
bool probe_cpu_virtual(void) {
    bool v = false;
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[4096];
        while (!v && fgets(line, sizeof line, f))
            if (strncmp(line, "flags", 5) == 0 && strstr(line, " hypervisor"))
                v = true;
        fclose(f);
    }
    if (!v) {
        f = fopen("/sys/hypervisor/type", "r");
        if (f) {
            v = fgetc(f) != EOF;
            fclose(f);
        }
    }
    return v;
}

/* The largest cache level's size from sysfs (one instance: what a core
 * sees), 0 when unknown. */
static double llc_sysfs(void) {
    double best = 0;
    for (int i = 0; i < 8; i++) {
        char path[96], text[32];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        if (fgets(text, sizeof text, f)) {
            char *end;
            double v = strtod(text, &end);
            if (*end == 'K')
                v *= 1024;
            else if (*end == 'M')
                v *= 1024 * 1024;
            if (v > best)
                best = v;
        }
        fclose(f);
    }
    return best;
}

/* Last-level cache in bytes: sysfs, else sysconf where glibc knows it
 * (some VMs report the whole package there: 320 MiB for 32), else 32 MiB. */
double probe_llc_bytes(void) {
    double fs = llc_sysfs();
    if (fs > 0)
        return fs;
    long v = -1;
#ifdef _SC_LEVEL3_CACHE_SIZE
    v = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
#ifdef _SC_LEVEL2_CACHE_SIZE
    if (v <= 0)
        v = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
    return v > 0 ? (double)v : 32.0 * 1024 * 1024;
}
