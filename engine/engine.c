/* placeholder: replaced by the engine work */
#include "engine/engine.h"
