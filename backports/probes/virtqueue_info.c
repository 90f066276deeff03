// SPDX-License-Identifier: GPL-2.0-only
/* virtio_find_vqs() takes struct virtqueue_info (6.11) */
#include <linux/virtio_config.h>

int fb_probe(struct virtio_device *vdev, struct virtqueue *vqs[],
	     struct virtqueue_info *info);
int fb_probe(struct virtio_device *vdev, struct virtqueue *vqs[],
	     struct virtqueue_info *info)
{
	return virtio_find_vqs(vdev, 1, vqs, info, NULL);
}
