/*
 * In-place key mapping (common.cl's key_to_bits / bits_to_key) as passes of their own, for the
 * families that compare whole unsigned keys: map before the sort, map back after it.
 */

__kernel void keys_to_bits(__global key_t *keys, ulong n)
{
    ulong i = get_global_id(0);
    if (i < n)
        keys[i] = key_to_bits(keys[i]);
}

__kernel void keys_from_bits(__global key_t *keys, ulong n)
{
    ulong i = get_global_id(0);
    if (i < n)
        keys[i] = bits_to_key(keys[i]);
}
