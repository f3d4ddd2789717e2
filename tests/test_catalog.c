#include <criterion/criterion.h>
#include "catalog/catalog.h"
Test(catalog, placeholder) {}
