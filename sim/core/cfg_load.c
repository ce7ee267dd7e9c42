/* cfg_load.c: one document from a file, read by the front-end its name
 * asks for: JSON for a .json file (cfg_json.c), YAML for any other
 * (cfg.c). */
#include "core/cfg.h"

#include <string.h>

ss_doc *ss_doc_load(const char *path, ss_err *err)
{
    size_t n = strlen(path);
    if (n >= 5 && strcmp(path + n - 5, ".json") == 0) return ss_doc_load_json(path, err);
    return ss_doc_load_yaml(path, err);
}
