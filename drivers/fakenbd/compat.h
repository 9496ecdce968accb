/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The block layer's API as fakenbd meets it on 6.1 and on 6.12: the one
 * place that tells them apart, by the FAKENBD_HAVE_* that Kbuild finds in
 * the target kernel's headers. Included by dev.c only.
 *
 *   QUEUE_LIMITS   a disk's limits and features are given at allocation
 *                  in a struct queue_limits (6.9; 6.11 for the features)
 *   OPEN_GENDISK   block_device_operations.open takes the gendisk and a
 *                  blk_mode_t (6.5)
 *   LINUX_UNALIGNED  <linux/unaligned.h> replaced <asm/unaligned.h> (6.12)
 */
#ifndef _FAKENBD_COMPAT_H
#define _FAKENBD_COMPAT_H

#include <linux/blk-mq.h>
#include <linux/blkdev.h>

/**
 * struct fakenbd_queue_setup - what a disk's queue is made with
 * @logical_block: the smallest unit of I/O, bytes (512 to a page)
 * @physical_block: the unit the export serves best, bytes
 * @max_sectors: largest request, in sectors
 * @timeout: a request's timeout, in jiffies
 * @rotational: the export says it is a spinning disk
 * @write_cache: the disk has a cache to flush (the server takes FLUSH)
 * @fua: and writes that bypass it (FUA); ignored without @write_cache
 * @discard: the disk takes discards (the server takes TRIM)
 */
struct fakenbd_queue_setup {
	unsigned int logical_block;
	unsigned int physical_block;
	unsigned int max_sectors;
	unsigned int timeout;
	bool rotational;
	bool write_cache;
	bool fua;
	bool discard;
};

#ifdef FAKENBD_HAVE_QUEUE_LIMITS
static inline struct gendisk *
fakenbd_compat_alloc_disk(struct blk_mq_tag_set *set,
			  const struct fakenbd_queue_setup *setup, void *data)
{
	struct queue_limits lim = {
		.logical_block_size = setup->logical_block,
		.physical_block_size = setup->physical_block,
		.max_hw_sectors = setup->max_sectors,
	};
	struct gendisk *disk;

	if (setup->rotational)
		lim.features |= BLK_FEAT_ROTATIONAL;
	if (setup->write_cache)
		lim.features |= BLK_FEAT_WRITE_CACHE;
	if (setup->write_cache && setup->fua)
		lim.features |= BLK_FEAT_FUA;
	if (setup->discard) {
		lim.discard_granularity = SECTOR_SIZE;
		lim.max_hw_discard_sectors = UINT_MAX >> SECTOR_SHIFT;
	}
	disk = blk_mq_alloc_disk(set, &lim, data);
	if (!IS_ERR(disk))
		blk_queue_rq_timeout(disk->queue, setup->timeout);
	return disk;
}
#else
static inline struct gendisk *
fakenbd_compat_alloc_disk(struct blk_mq_tag_set *set,
			  const struct fakenbd_queue_setup *setup, void *data)
{
	struct gendisk *disk = blk_mq_alloc_disk(set, data);
	struct request_queue *q;

	if (IS_ERR(disk))
		return disk;
	q = disk->queue;
	blk_queue_logical_block_size(q, setup->logical_block);
	blk_queue_physical_block_size(q, setup->physical_block);
	blk_queue_max_hw_sectors(q, setup->max_sectors);
	blk_queue_rq_timeout(q, setup->timeout);
	if (!setup->rotational)
		blk_queue_flag_set(QUEUE_FLAG_NONROT, q);
	blk_queue_write_cache(q, setup->write_cache,
			      setup->write_cache && setup->fua);
	if (setup->discard) {
		q->limits.discard_granularity = SECTOR_SIZE;
		blk_queue_max_discard_sectors(q, UINT_MAX >> SECTOR_SHIFT);
	}
	return disk;
}
#endif

/* The open callback, as each kernel calls it, on fakenbd_open_disk(). */
static int fakenbd_open_disk(struct gendisk *disk);

#ifdef FAKENBD_HAVE_OPEN_GENDISK
static int fakenbd_compat_open(struct gendisk *disk, blk_mode_t mode)
{
	return fakenbd_open_disk(disk);
}
#else
static int fakenbd_compat_open(struct block_device *bdev, fmode_t mode)
{
	return fakenbd_open_disk(bdev->bd_disk);
}
#endif

#endif /* _FAKENBD_COMPAT_H */
