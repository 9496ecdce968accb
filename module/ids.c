// SPDX-License-Identifier: GPL-2.0
/*
 * Node ids: the numbers from which inode numbers are made (inode.c).
 */
#include <linux/bitmap.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "internal.h"

/*
 * Node ids, the high bits of inode numbers; 0 is the root's. An id is
 * freed with its node, so after the last inode using it is gone: no two
 * live inodes share a number, and numbers stay small enough for 32-bit
 * stat() and getdents().
 *
 * A bitmap of the ids in use, grown by doubling, and a hint below which
 * no id is free: an allocation mostly reads one word, a free clears one
 * bit. Cheaper than an IDA, whose search of its tree of bitmaps under an
 * irq-safe lock was the largest cost of a mkdir that tmpfs does not pay;
 * as small (a bit or two per id, at the most ids ever live at once).
 *
 * cng_id_lock (taken with bottom halves off: ids are freed in softirq,
 * from the RCU callback) protects the three; the map is replaced, never
 * shrunk, and only by cng_id_alloc().
 */
static DEFINE_SPINLOCK(cng_id_lock);
static unsigned long *cng_id_map;	/* bit n set: id n is in use */
static unsigned int cng_id_bits;	/* bits in cng_id_map */
static unsigned int cng_id_hint;	/* no free id below it */

/**
 * cng_id_alloc() - the lowest free node id
 *
 * Context: process; sleeps (the map grows with GFP_KERNEL).
 * Return: the id, -ENOMEM, or -ENOSPC past INT_MAX / 2 ids.
 */
int cng_id_alloc(void)
{
	unsigned long *map, *old;
	unsigned int bits, id;

	for (;;) {
		spin_lock_bh(&cng_id_lock);
		id = cng_id_map ? find_next_zero_bit(cng_id_map, cng_id_bits,
						     cng_id_hint) : 0;
		if (cng_id_map && id < cng_id_bits) {
			__set_bit(id, cng_id_map);
			cng_id_hint = id + 1;
			spin_unlock_bh(&cng_id_lock);
			return id;
		}
		bits = cng_id_bits;
		spin_unlock_bh(&cng_id_lock);

		if (bits >= INT_MAX / 2)
			return -ENOSPC;
		bits = max(2 * bits, 4096U);
		map = kvcalloc(BITS_TO_LONGS(bits), sizeof(long), GFP_KERNEL);
		if (!map)
			return -ENOMEM;
		spin_lock_bh(&cng_id_lock);
		old = map;
		if (bits > cng_id_bits) {
			if (cng_id_map)
				bitmap_copy(map, cng_id_map, cng_id_bits);
			else
				__set_bit(0, map);	/* the root's */
			old = cng_id_map;
			cng_id_map = map;
			cng_id_bits = bits;
		}
		spin_unlock_bh(&cng_id_lock);
		kvfree(old);
	}
}

/* Context: any but hard irq. */
void cng_id_free(unsigned int id)
{
	spin_lock_bh(&cng_id_lock);
	__clear_bit(id, cng_id_map);
	cng_id_hint = min(cng_id_hint, id);
	spin_unlock_bh(&cng_id_lock);
}

void cng_ids_exit(void)
{
	/* After cng_node_exit(): every node, and so every id, is freed. */
	kvfree(cng_id_map);
	cng_id_map = NULL;
	cng_id_bits = 0;
	cng_id_hint = 0;
}
