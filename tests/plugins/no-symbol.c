/* no-symbol.c: test plugin that is a perfectly good shared object but
 * exports no `ss_policy`, so the loader's "not a servesim policy" refusal
 * can be exercised. */
#include <servesim/policy.h>

/* Something to export, so the object is not empty and looks plausible. */
int ss_test_not_a_policy(void);
int ss_test_not_a_policy(void)
{
    return SS_POLICY_ABI;
}
