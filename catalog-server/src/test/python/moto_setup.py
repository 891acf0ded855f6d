"""Seeds a moto server whose IAM checks are on (INITIAL_NO_AUTH_ACTION_COUNT=3): an admin user with a key (the
catalog's own identity), a role it may assume with s3:* (the role vended credentials come from), and the buckets.
Prints the admin's key and the role's ARN as JSON. Used by MotoServer.java."""
import json
import sys

import boto3

endpoint, role, buckets = sys.argv[1], sys.argv[2], sys.argv[3:]
anonymous = dict(endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="setup", aws_secret_access_key="setup")
iam = boto3.client("iam", **anonymous)
# The three calls moto lets through unchecked: after them, every request needs a valid key and an allowing policy.
iam.create_user(UserName="catalog")
key = iam.create_access_key(UserName="catalog")["AccessKey"]
iam.put_user_policy(
    UserName="catalog",
    PolicyName="admin",
    PolicyDocument=json.dumps(
        {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}
    ),
)
admin = dict(
    endpoint_url=endpoint,
    region_name="us-east-1",
    aws_access_key_id=key["AccessKeyId"],
    aws_secret_access_key=key["SecretAccessKey"],
)
iam = boto3.client("iam", **admin)
arn = iam.create_role(
    RoleName=role,
    AssumeRolePolicyDocument=json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [{"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "sts:AssumeRole"}],
        }
    ),
)["Role"]["Arn"]
iam.put_role_policy(
    RoleName=role,
    PolicyName="s3",
    PolicyDocument=json.dumps(
        {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}
    ),
)
s3 = boto3.client("s3", **admin)
for bucket in buckets:
    s3.create_bucket(Bucket=bucket)
print(json.dumps({"access_key_id": key["AccessKeyId"], "secret_access_key": key["SecretAccessKey"], "role_arn": arn}))
