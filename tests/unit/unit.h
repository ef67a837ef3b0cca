/* Common includes for cmocka unit tests. */
#ifndef KB_UNIT_H
#define KB_UNIT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#endif
