/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuse-backport wrapper of <linux/virtio_config.h>: virtio_find_vqs() with
 * one struct virtqueue_info per queue (6.11) rather than parallel arrays of
 * callbacks, names and ctx flags.
 */
#ifndef FB_LINUX_VIRTIO_CONFIG_H
#define FB_LINUX_VIRTIO_CONFIG_H

#include_next <linux/virtio_config.h>

#ifndef HAVE_VIRTQUEUE_INFO
#include <linux/slab.h>

struct virtqueue_info {
	const char *name;	/* NULL: the queue is not used */
	vq_callback_t *callback;
	bool ctx;
};

static inline int fb_virtio_find_vqs(struct virtio_device *vdev,
				     unsigned int nvqs,
				     struct virtqueue *vqs[],
				     struct virtqueue_info vqs_info[],
				     struct irq_affinity *desc)
{
	vq_callback_t **callbacks;
	const char **names;
	bool *ctx;
	unsigned int i;
	int err = -ENOMEM;

	callbacks = kcalloc(nvqs, sizeof(*callbacks), GFP_KERNEL);
	names = kcalloc(nvqs, sizeof(*names), GFP_KERNEL);
	ctx = kcalloc(nvqs, sizeof(*ctx), GFP_KERNEL);
	if (callbacks && names && ctx) {
		for (i = 0; i < nvqs; i++) {
			callbacks[i] = vqs_info[i].callback;
			names[i] = vqs_info[i].name;
			ctx[i] = vqs_info[i].ctx;
		}
		err = vdev->config->find_vqs(vdev, nvqs, vqs, callbacks,
					     names, ctx, desc);
	}
	kfree(ctx);
	kfree(names);
	kfree(callbacks);
	return err;
}
#define virtio_find_vqs fb_virtio_find_vqs
#endif

#endif /* FB_LINUX_VIRTIO_CONFIG_H */
