/*
 * report.h: the explorer's and the headless commands' access to the one
 * number formatter (engine/format.h), with this reader's conventions:
 * decimal units (GB = 1e9) or binary ones (GiB = 2^30) for memory as the
 * user chose, the locale's decimal mark and thousands separator, a
 * no-break space between a number and its unit in a UTF-8 locale, unit
 * words through gettext. Rates, FLOP/s and counts are decimal. Every
 * function writes into a caller's buffer and never fails (a too small
 * buffer truncates). The examples below are the C locale's.
 */
#ifndef VRAMLAB_REPORT_H
#define VRAMLAB_REPORT_H

#include <stddef.h>

#include "engine/format.h"
#include "tui/commands.h"

/* Any figure by its unit kind (engine_format with this reader's
 * conventions; u picks GB or GiB for memory). */
void report_value(double v, enum engine_unit kind, enum units u, char *buf, size_t len);

/* A figure of the registry (engine/figures.h) by its key, as this reader
 * reads it: "876 tok/s", "1.25 GiB"; "n/a" where it does not apply. */
void report_figure(const struct engine_scenario *sc, const struct engine_estimate *e,
                   enum engine_key k, enum units u, char *buf, size_t len);

/* Bytes in the chosen units: "140.0 GB", "1.07 GB", "512.0 MiB", "0 B",
 * "1.00 TB" (not "1000.0 GB"), "13.5 TB"; past 1000 EB "1.00e+24 B". */
void report_bytes(double bytes, enum units u, char *buf, size_t len);
/* A bare number with 3 significant figures or more and thousands
 * separators for large values: "209", "1,234", "0.512", "12.5". */
void report_number(double v, char *buf, size_t len);
/* A count with a decimal suffix: "8.03B", "70.0B", "15.6T", "512". */
void report_count(double n, char *buf, size_t len);
/* A whole number with thousands separators: "6,031", "16,384". */
void report_int(double v, char *buf, size_t len);
/* A ratio, three significant figures: "1.02x", "13.5x", "102x". */
void report_ratio(double r, char *buf, size_t len);
/* Seconds in a readable unit: "12.3 ns", "12.3 ms", "0.58 s", "4.2 min",
 * "3.1 h", "54.0 days", "17,476 days"; below 1 ns "7.02e-17 s". */
void report_seconds(double s, char *buf, size_t len);
/* Bytes per second: "3.35 TB/s", "900 GB/s"; past 1000 EB/s "1.00e+30 B/s". */
void report_bandwidth(double bytes_per_s, char *buf, size_t len);
/* FLOP/s: "989 TFLOP/s". */
void report_flops(double flop_per_s, char *buf, size_t len);
/* US dollars: "$1,234,567", "$12.34"; from $1e15 "$1.00e+30". */
void report_money(double usd, char *buf, size_t len);
/* A fraction as a percentage: "40.0%". */
void report_percent(double fraction, char *buf, size_t len);

/* The printf field width ("%*s", "%-*s") that pads s to `cells` display
 * cells in a table: a figure's no-break space and a translation's "ñ"
 * take more bytes than cells. */
int report_pad(const char *s, int cells);

/* Split a figure this formatter wrote ("143.6 GB", with the reader's
 * space) into its number ("143.6") and its unit ("GB"; "" when none). */
void report_split_unit(const char *s, char *num, size_t nl, char *unit, size_t ul);

/* The text of an engine warning (engine_warning_text), with the figures
 * of the warnings that carry sizes and times written by this formatter
 * ("needs 1.02x the memory of one GPU (13.5 TB short)"), in units u. */
void report_warning(const struct engine_scenario *sc, const struct engine_estimate *e,
                    enum engine_warning w, enum units u, char *buf, size_t len);

#endif
