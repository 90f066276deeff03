// SPDX-License-Identifier: GPL-2.0-only
/* fs_parser parses uid/gid options itself: fsparam_uid(), result.uid (6.9) */
#include <linux/fs_parser.h>

kuid_t fb_probe(struct fs_context *fc, struct fs_parameter *param);

static const struct fs_parameter_spec fb_params[] = {
	fsparam_uid("uid", 0),
	fsparam_gid("gid", 1),
	{}
};

kuid_t fb_probe(struct fs_context *fc, struct fs_parameter *param)
{
	struct fs_parse_result result;

	if (fs_parse(fc, fb_params, param, &result) < 0)
		return INVALID_UID;
	return result.uid;
}
