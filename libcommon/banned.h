/*
 * banned.h - functions that are easy to misuse; including this header makes
 * every use a compile error.  Use snprintf, memcpy with a checked length, or
 * strtok_r instead.
 */
#ifndef TG_BANNED_H
#define TG_BANNED_H

#define TG_BANNED(f) sorry_##f##_is_banned_in_tangram

#undef strcpy
#define strcpy(a, b) TG_BANNED(strcpy)
#undef strcat
#define strcat(a, b) TG_BANNED(strcat)
#undef sprintf
#define sprintf(...) TG_BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) TG_BANNED(vsprintf)
#undef strtok
#define strtok(a, b) TG_BANNED(strtok)
#undef gets
#define gets(a) TG_BANNED(gets)
#undef atoi
#define atoi(a) TG_BANNED(atoi)

#endif
