/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The sql/ files, embedded at build time by sql/embed.sh: each
 * sql/NAME.sql is const char ntp_sql_NAME[], declared in the header
 * generated from the Makefile's SQL_FILES (each file says what it holds).
 */
#ifndef NTP_SQL_H
#define NTP_SQL_H

#include "ntp_sql_decl.h"

#endif
